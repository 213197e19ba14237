import HeraldPostgres
import Testing

/// HERALD_DB_PREPARED_STATEMENTS=off leaves the pool's connections without prepared statements
/// (for pgbouncer in transaction mode); by default the queries the application runs are prepared.
@Suite struct PreparedStatementsSettingTests {
    func preparedAfterAQuery(_ environment: [String: String]) throws -> Int {
        // One connection, so the query and the look that follows share it.
        let test = try TestApplication(environment: environment.merging(["HERALD_DB_POOL_SIZE": "1"]) { _, new in new })
        #expect(try test.count("SELECT count(*) FROM campaigns") == 0)
        return try test.pool.withConnection { $0.preparedStatementCount }
    }

    @Test func offLeavesEveryStatementUnprepared() throws {
        #expect(try preparedAfterAQuery(["HERALD_DB_PREPARED_STATEMENTS": "off"]) == 0)
    }

    @Test func onByDefault() throws {
        #expect(try preparedAfterAQuery([:]) > 0)
    }
}
