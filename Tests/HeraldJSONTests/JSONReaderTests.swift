import Foundation
import Testing
@testable import HeraldJSON

@Suite struct JSONReaderTests {
    @Test func collectsEveryProblemWithPaths() throws {
        let object = try #require(try JSON.parse(#"{"a": 1, "b": "x", "c": [1, "y"], "d": {"e": 2}, "f": 1.5, "g": null}"#).objectValue)
        var reader = JSONReader()
        #expect(reader.string(object, "a", at: "root") == nil)
        #expect(reader.string(object, "b", at: "root") == "x")
        #expect(reader.strings(object, "c", at: "root") == ["y"])
        _ = reader.stringMap(object, "d", at: "root")
        #expect(reader.int(object, "f", at: "root") == nil)
        #expect(reader.string(object, "g", at: "root", required: true) == nil)
        reader.rejectUnknown(object, known: ["a", "b", "c", "d", "f", "g"], at: "root")
        #expect(reader.issues.map(\.description) == [
            "root.a: wrong_type: expected a string, found a number",
            "root.c[0]: wrong_type: expected a string, found a number",
            "root.d.e: wrong_type: expected a string, found a number",
            "root.f: wrong_type: expected an integer, found the number 1.5",
            "root.g: required: \"g\" is required",
        ])
    }

    @Test func appendsIssuesUnderAPrefix() {
        var reader = JSONReader()
        reader.append([JSONIssue(path: "x.y", code: "c", message: "m"), JSONIssue(path: "", code: "d", message: "n")], under: "p")
        #expect(reader.issues.map(\.path) == ["p.x.y", "p"])
    }

    @Test func jsonIsCodableThroughFoundation() throws {
        let value = try JSON.parse(#"{"a": [1, 2.5, true, null, "s"], "b": {"c": "d"}}"#)
        let data = try JSONEncoder().encode(value)
        #expect(try JSON.parse(Array(data)) == value)
        #expect(try JSONDecoder().decode(JSON.self, from: data) == value)
        // Whole numbers stay whole ("1", not "1.0").
        #expect(String(decoding: try JSONEncoder().encode(JSON.array([1])), as: UTF8.self) == "[1]")
    }
}
