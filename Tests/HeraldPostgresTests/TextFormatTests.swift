import Foundation
@testable import HeraldPostgres
import Testing

/// The text forms of timestamps and arrays, without a database.
@Suite struct TextFormatTests {
    @Test(arguments: [
        ("2026-11-21 23:47:43.123456+00", 1_795_304_863.123456),
        ("2026-11-21 23:47:43+00", 1_795_304_863.0),
        ("2026-11-22 05:17:43.5+05:30", 1_795_304_863.5),
        ("2026-11-21 20:47:43-03", 1_795_304_863.0),
        ("1883-11-18 12:03:58-05:56:02", -2_717_647_200.0),
        ("2026-11-21T23:47:43.1Z", 1_795_304_863.1),
        ("2026-11-21 23:47:43.1234567+00", 1_795_304_863.123456),
        ("1970-01-01", 0.0),
        ("1969-12-31 23:59:59.999999", -0.000001),
    ])
    func parsesTimestampsInAnyOffset(text: String, seconds: Double) throws {
        let date = try #require(PostgresTimestamp.parse(text))
        #expect(abs(date.timeIntervalSince1970 - seconds) < 0.0000005, "\(text)")
    }

    @Test(arguments: ["", "2026-11-21 ", "2026-13-01", "2026-11-21 23:47", "2026-11-21 23:47:43+", "tomorrow", "2026-11-21 23:47:43.+00"])
    func rejectsMalformedTimestamps(text: String) {
        #expect(PostgresTimestamp.parse(text) == nil)
    }

    @Test func formatsUTCWithMicrosecondsAndRoundTrips() throws {
        let date = Date(timeIntervalSince1970: 1_795_304_863.000042)
        #expect(PostgresTimestamp.format(date) == "2026-11-21T23:47:43.000042Z")
        #expect(PostgresTimestamp.format(Date(timeIntervalSince1970: -0.5)) == "1969-12-31T23:59:59.500000Z")
        for seconds in [-62_135_596_800.0, -1.25, 0, 951_782_400.999999, 4_102_444_800.5] {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(PostgresTimestamp.parse(PostgresTimestamp.format(date)) == date)
        }
        #expect(PostgresTimestamp.parse("infinity") == .distantFuture)
    }

    @Test func arrayLiteralsQuoteEveryElement() {
        #expect(PostgresArrayLiteral.format([]) == "{}")
        #expect(PostgresArrayLiteral.format(["a", "b\"c", "d\\e", "NULL"]) == #"{"a","b\"c","d\\e","NULL"}"#)
    }

    @Test func arrayLiteralsParseQuotedUnquotedAndNull() {
        #expect(PostgresArrayLiteral.parse("{}")! == [])
        #expect(PostgresArrayLiteral.parse(#"{a,"b c",NULL,"NULL","x\"y",z\,w}"#)! == ["a", "b c", nil, "NULL", "x\"y", "z,w"])
        #expect(PostgresArrayLiteral.parse("{{a},{b}}") == nil)
        #expect(PostgresArrayLiteral.parse("[0:1]={a,b}") == nil)
        #expect(PostgresArrayLiteral.parse(#"{"open}"#) == nil)
    }
}

/// Interpolation builds placeholders and binds, without a database.
@Suite struct QueryBuildingTests {
    @Test func interpolatedValuesBecomeNumberedBinds() {
        let name = "x'; DROP TABLE users; --"
        let limit: Int? = nil
        let query: PostgresQuery = "SELECT * FROM users WHERE name = \(name) AND age > \(Int32(18)) LIMIT \(limit)"
        #expect(query.sql == "SELECT * FROM users WHERE name = $1 AND age > $2 LIMIT $3")
        #expect(query.binds == [
            PostgresValue(type: .text, text: name),
            PostgresValue(type: .int4, text: "18"),
            .null(.int8),
        ])
        #expect(!query.description.contains("DROP"))
    }

    @Test func bytesGoInBinaryAndArraysAsQuotedLiterals() {
        let query: PostgresQuery = "SELECT \([UInt8]([0, 1])), \(["a\"b", "c"])"
        #expect(query.binds[0] == PostgresValue(type: .bytea, format: .binary, bytes: [0, 1]))
        #expect(query.binds[1] == PostgresValue(type: .textArray, text: #"{"a\"b","c"}"#))
    }
}
