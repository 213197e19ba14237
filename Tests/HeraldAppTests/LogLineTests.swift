import HeraldJSON
import HeraldSync
import Testing
@testable import HeraldApp

/// A log line is one JSON object on one line: its time, level and message first, then the fields
/// in their order; a field named like one of the line's own replaces it where it stands.
@Suite struct LogLineTests {
    static func lines(_ write: (Log) -> Void) -> [[UInt8]] {
        let captured = Locked<[[UInt8]]>([])
        write(Log(minimum: .info, sink: { line in captured.withLock { $0.append(line) } }))
        return captured.withLock { $0 }
    }

    @Test func aLineIsOneObjectWithItsOwnMembersFirstThenTheFieldsInOrder() throws {
        let lines = Self.lines { log in
            log.info("request \"quoted\"\n", ["request_id": "a-1", "status": 200, "duration_ms": 1.25, "path": "/ü"])
            log.debug("hidden", [:])
        }
        #expect(lines.count == 1)
        let line = try #require(lines.first)
        #expect(line.last == 0x0A && line.dropLast().allSatisfy { $0 != 0x0A })
        let object = try #require(try JSON.parse(line.dropLast()).objectValue)
        #expect(object.keys == ["time", "level", "message", "request_id", "status", "duration_ms", "path"])
        #expect(object["level"] == "info" && object["message"] == "request \"quoted\"\n")
        #expect(object["status"] == 200 && object["duration_ms"] == 1.25 && object["path"] == "/ü")
        #expect(object["time"]?.stringValue?.count == 24)
    }

    @Test func aFieldNamedLikeTheLinesOwnReplacesItInPlace() throws {
        let line = try #require(Self.lines { $0.warning("said", ["level": "custom", "extra": true]) }.first)
        let object = try #require(try JSON.parse(line.dropLast()).objectValue)
        #expect(object.keys == ["time", "level", "message", "extra"])
        #expect(object["level"] == "custom" && object["message"] == "said")
    }
}
