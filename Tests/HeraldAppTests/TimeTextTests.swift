import FCMMessage
import Foundation
import HeraldPostgres
import Testing

/// Herald writes every instant of its API one way (`RFC3339.utc`) and reads PostgreSQL's
/// timestamps by hand: both against PostgreSQL itself, on random instants.
@Suite struct TimeTextTests {
    @Test func instantsAreWrittenAsPostgreSQLWritesThemAndReadBackToTheMicrosecond() throws {
        let harness = try TestApplication()
        // A Date (a Double of seconds) holds microseconds exactly for the times Herald keeps: this era's.
        var micros = (0..<500).map { _ in Int64.random(in: 631_152_000_000_000...2_051_222_400_000_000) }  // 1990…2035
        micros += [0, -1, 1, 999_999, -1_000_000, 86_399_999_999, 1_795_652_063_123_456]
        let rows = try harness.pool.withConnection { try $0.query("""
            SELECT m, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS text, at
            FROM (SELECT m, timestamptz 'epoch' + (m / 1000000) * interval '1 second' + (m % 1000000) * interval '1 microsecond' AS at
                  FROM unnest(string_to_array(\(micros.map(String.init).joined(separator: ",")), ',')::bigint[]) AS m) AS x
            """) }
        #expect(rows.count == micros.count)
        for row in rows {
            let (m, text, at) = try row.decode((Int64, String, Date).self, columns: "m", "text", "at")
            #expect(RFC3339.utc(secondsSince1970: Double(m) / 1_000_000) == text, "\(m)")
            #expect(Int64((at.timeIntervalSince1970 * 1_000_000).rounded()) == m, "\(text)")
        }
    }
}
