@testable import HeraldJSON
import Testing

extension JSONWriterTests {
    @Test func escapesOnlyWhatJSONRequiresBetweenRunsCopiedWhole() throws {
        let text = "سلام \"Sara\"\\ line\nnext\ttab\r\u{01}\u{1F} end ✓"
        #expect(JSON.string(text).serializedString() == #""سلام \"Sara\"\\ line\nnext\ttab\r\u0001\u001f end ✓""#)
        #expect(JSON.string("").serializedString() == #""""#)
        #expect(JSON.string("\"").serializedString() == #""\"""#)
        // What is written reads back as the same text.
        #expect(try JSON.parse(JSON.string(text).serializedString()) == .string(text))
    }

    @Test func keysAreTheSameOnlyWhenTheirBytesAre() {
        // "é" precomposed and decomposed are equal as Swift strings, but different JSON keys.
        var object = JSONObject([("caf\u{E9}", JSON.number(1)), ("cafe\u{301}", JSON.number(2)), ("caf\u{E9}", JSON.number(3))])
        #expect(object.count == 2)
        #expect(object["caf\u{E9}"] == .number(3))
        #expect(object["cafe\u{301}"] == .number(2))
        object["cafe"] = .number(4)
        #expect(object.keys == ["caf\u{E9}", "cafe\u{301}", "cafe"])
        #expect(object["caf"] == nil)
    }
}

@Suite struct CanonicalJSONTests {
    @Test func memberOrderAndWhiteSpaceDoNotChangeTheCanonicalEncoding() throws {
        let one = try JSON.parse(Array(#"{"b":[{"y":1,"x":2.0}],"a":"é","c":null}"#.utf8))
        let two = try JSON.parse(Array("{ \"c\": null,\n \"a\": \"\\u00e9\", \"b\": [ { \"x\": 2, \"y\": 1 } ] }".utf8))
        #expect(one.canonicalSerialized() == two.canonicalSerialized())
        #expect(String(decoding: one.canonicalSerialized(), as: UTF8.self) == #"{"a":"é","b":[{"x":2,"y":1}],"c":null}"#)
        // Array order is the value's: it stays.
        #expect(try JSON.parse(Array("[1,2]".utf8)).canonicalSerialized() != JSON.parse(Array("[2,1]".utf8)).canonicalSerialized())
    }
}
