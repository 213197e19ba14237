import Testing
@testable import HeraldJSON

@Suite struct JSONParserTests {
    @Test func parsesNestedDocumentsKeepingKeyOrder() throws {
        let value = try JSON.parse(#"{"b": [1, 2.5, -3e2, true, null], "a": {"x": "y\u00e9\n"}}"#)
        #expect(value.objectValue?.keys == ["b", "a"])
        #expect(value["b"] == [1, 2.5, -300, true, nil])
        #expect(value["a"]?["x"]?.stringValue == "yé\n")
    }

    @Test func decodesSurrogatePairsAndRawUnicode() throws {
        #expect(try JSON.parse(#""\ud83d\ude00 سلام""#) == "😀 سلام")
    }

    @Test(arguments: [
        (#"{"a": 1,}"#, 1, 9, "trailing comma in an object"),
        ("{\n  \"a\" 1\n}", 2, 7, "expected ':' after the key \"a\", found '1'"),
        (#"{"a": 1, "a": 2}"#, 1, 10, "duplicate key \"a\""),
        ("[01]", 1, 2, "numbers must not have leading zeros"),
        ("\"abc", 1, 1, "unterminated string"),
        ("{\"سلام\": tru}", 1, 10, "unexpected 't', expected a JSON value"),
        ("[1] x", 1, 5, "unexpected 'x' after the JSON value"),
        ("", 1, 1, "unexpected end of input, expected a JSON value"),
        ("\"a\u{01}\"", 1, 3, "control character U+0001 must be escaped in a string"),
    ])
    func reportsWhereInputIsMalformed(input: String, line: Int, column: Int, reason: String) {
        #expect(throws: JSONParseError(line: line, column: column, reason: reason)) { try JSON.parse(input) }
    }

    @Test func refusesInvalidUTF8() {
        #expect(throws: JSONParseError.self) { try JSON.parse([0x22, 0xFF, 0x22]) }
    }

    /// Every kind of invalid sequence is refused in strings with and without escapes, including
    /// those that decoding would repair into text of the same length (a truncated four-byte
    /// sequence becomes one U+FFFD, three bytes for three); where it is found is reported.
    @Test(arguments: [
        [0xC0, 0xAF], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80], [0xF0, 0x90, 0x80], [0x80], [0xF5, 0x80, 0x80, 0x80], [0xC3],
    ] as [[UInt8]])
    func refusesEveryKindOfInvalidUTF8(sequence: [UInt8]) {
        for prefix in [Array("ab".utf8), Array(#"a\n"#.utf8)] {
            let input = Array(#"{"k": ""#.utf8) + prefix + sequence + Array(#"z"}"#.utf8)
            #expect(throws: JSONParseError(line: 1, column: 8, reason: "invalid UTF-8 in a string"), "\(sequence)") { try JSON.parse(input) }
        }
    }

    @Test func keepsValidMultibyteTextByteForByte() throws {
        for text in ["سلام دنیا", "שלום", "नमस्ते", "Xin chào", "😀 e\u{301}", "plain ascii"] {
            let escaped = try JSON.parse(Array(#"[""#.utf8) + Array(text.utf8) + Array(#"\t"]"#.utf8))
            let raw = try JSON.parse(Array(#"[""#.utf8) + Array(text.utf8) + Array(#""]"#.utf8))
            #expect(raw.arrayValue?.first?.stringValue.map { Array($0.utf8) } == Array(text.utf8))
            #expect(escaped.arrayValue?.first?.stringValue.map { Array($0.utf8) } == Array(text.utf8) + [0x09])
        }
    }

    @Test func limitsNestingDepth() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(throws: JSONParseError.self) { try JSON.parse(deep) }
    }
}

@Suite struct JSONWriterTests {
    @Test func writesCompactValidJSONThatRoundTrips() throws {
        let value: JSON = ["title": "Say \"hi\"\n\t/", "n": 42, "f": 0.5, "list": [true, nil], "fa": "سلام 😀"]
        let text = value.serializedString()
        #expect(text == #"{"title":"Say \"hi\"\n\t/","n":42,"f":0.5,"list":[true,null],"fa":"سلام 😀"}"#)
        #expect(try JSON.parse(text) == value)
        #expect(try JSON.parse(value.prettyString()) == value)
    }

    @Test func escapesControlCharacters() {
        #expect(JSON.string("\u{01}").serializedString() == #""\u0001""#)
    }

    @Test func objectEqualityIgnoresOrder() {
        let a: JSON = ["x": 1, "y": 2]
        let b: JSON = ["y": 2, "x": 1]
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
    }
}

/// Keys are compared byte for byte: two keys that differ only in Unicode normalization are two
/// keys to FCM, so they are two keys here (Swift's `==` on String would merge them).
@Suite struct JSONKeyIdentityTests {
    @Test func composedAndDecomposedKeysAreDistinct() throws {
        let composed = "caf\u{e9}", decomposed = "cafe\u{301}"
        let object = try JSON.parse(Array("{\"\(composed)\": 1, \"\(decomposed)\": 2}".utf8))
        #expect(object.objectValue?.count == 2)
        #expect(object[composed] == 1 && object[decomposed] == 2)
        #expect(throws: (any Error).self) { try JSON.parse(Array("{\"\(composed)\": 1, \"\(composed)\": 2}".utf8)) }
    }
}
