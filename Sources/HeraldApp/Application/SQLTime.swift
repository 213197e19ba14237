import HeraldPostgres

extension PostgresQuery.StringInterpolation {
    /// A timestamptz column as RFC 3339 UTC with microseconds ("2026-11-21T23:59:59.123456Z"),
    /// the one shape every store reads times in and `CampaignCursor` checks.
    mutating func appendInterpolation(utc column: StaticString) {
        appendLiteral("to_char(\(column) AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')")
    }
}
