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
