@testable import HeraldPostgres
import HeraldTestSupport
import Testing

/// Repeated data statements run prepared, transparently: same answers and errors as unprepared
/// ones, a bounded number per connection, and recovery when the server drops or invalidates one.
@Suite struct PreparedStatementTests {
    /// The statements the server holds for this session. The leading comment keeps this query
    /// itself from being prepared (only statements that start with a data keyword are).
    private func serverStatements(_ connection: PostgresConnection) throws -> Int {
        try connection.query("/* unprepared */ SELECT count(*) FROM pg_prepared_statements").single()!.decode(Int.self, at: 0)
    }

    @Test func aRepeatedQueryIsPreparedOnceAndAnswersAlike() throws {
        let connection = try PostgresConnection(url: TestDatabase.url())
        for n in 0..<5 {
            let row = try #require(try connection.query("SELECT \(n)::int8 + 1, \("x") || 'y'").single())
            #expect(try row.decode((Int, String).self) == (n + 1, "xy"))
        }
        #expect(connection.preparedStatementCount == 1)
        #expect(try serverStatements(connection) == 1)
        // The same text with another parameter type is another statement.
        let text = try #require(try connection.query("SELECT \("4")::int8 + 1, \("x") || 'y'").single())
        #expect(try text.decode(Int.self, at: 0) == 5)
        #expect(connection.preparedStatementCount == 2)
    }

    @Test func utilityStatementsAreNotPrepared() throws {
        let connection = try PostgresConnection(url: TestDatabase.url())
        try connection.transaction { connection in
            try connection.execute("SET LOCAL statement_timeout TO 1000")
            _ = try connection.query("SELECT 1")
        }
        #expect(connection.preparedStatementCount == 1, "BEGIN, SET and COMMIT run unprepared")
    }

    @Test func theNumberOfStatementsIsBounded() throws {
        let connection = try PostgresConnection(url: TestDatabase.url(), preparedStatements: 3)
        for n in 0..<10 {
            _ = try connection.query(PostgresQuery(unsafeSQL: "SELECT \(n)"))
            #expect(connection.preparedStatementCount == min(n + 1, 3))
        }
        #expect(try serverStatements(connection) == 3, "evicted statements are deallocated on the server")
        // The most recently used survive: running one again prepares nothing new.
        _ = try connection.query(PostgresQuery(unsafeSQL: "SELECT 9"))
        #expect(try serverStatements(connection) == 3)
    }

    @Test func errorsAreTheSameAsUnprepared() throws {
        let connection = try PostgresConnection(url: TestDatabase.url())
        let error = try #require(throws: PostgresError.self) { try connection.query("SELECT nonsense FROM nowhere") }
        #expect(error.sqlState == "42P01")
        #expect(connection.preparedStatementCount == 0, "a statement that failed to prepare is not kept")
        let division = try #require(throws: PostgresError.self) { try connection.query("SELECT 1 / \(0)") }
        #expect(division.sqlState == "22012")
        #expect(try connection.query("SELECT 1 / \(1)").single()?.decode(Int.self, at: 0) == 1)
    }

    @Test func aStatementTheServerDroppedIsPreparedAgain() throws {
        let connection = try PostgresConnection(url: TestDatabase.url())
        _ = try connection.query("SELECT \(1)")
        try connection.executeScript("DEALLOCATE ALL")
        #expect(try connection.query("SELECT \(2)").single()?.decode(Int.self, at: 0) == 2)
    }

    @Test func aChangedTableShapeIsPreparedAgain() throws {
        let schema = try TestSchema()
        defer { schema.drop() }
        let connection = try schema.connect()
        try connection.executeScript("CREATE TABLE shapes (a int8); INSERT INTO shapes VALUES (1)")
        #expect(try connection.query("SELECT * FROM shapes").single()?.decode(Int.self, at: 0) == 1)
        try connection.executeScript("ALTER TABLE shapes ADD COLUMN b text DEFAULT 'two'")
        let row = try #require(try connection.query("SELECT * FROM shapes").single())
        #expect(try row.decode((Int, String).self) == (1, "two"))
        // Inside a transaction the failure stands (it aborted the transaction), and the next try succeeds.
        try connection.executeScript("ALTER TABLE shapes ADD COLUMN c int8 DEFAULT 3")
        #expect(throws: PostgresError.self) {
            try connection.transaction { try $0.query("SELECT * FROM shapes") }
        }
        let widened = try #require(try connection.query("SELECT * FROM shapes").single())
        #expect(try widened.decode((Int, String, Int).self) == (1, "two", 3))
    }

    @Test func onlyDataStatementsArePreparable() {
        for sql in ["SELECT 1", "  select 1", "\n(SELECT 1) UNION (SELECT 2)", "WITH x AS (SELECT 1) SELECT * FROM x",
                    "values (1)", "INSERT INTO t VALUES (1)", "Update t SET a = 1", "DELETE FROM t"] {
            #expect(PreparedStatements.isPreparable(sql), "\(sql)")
        }
        for sql in ["BEGIN", "COMMIT", "SET LOCAL x TO 1", "LISTEN c", "/* c */ SELECT 1", "CREATE TABLE t (a int)",
                    "selection", "select_x", "", "   ", "DEALLOCATE ALL"] {
            #expect(!PreparedStatements.isPreparable(sql), "\(sql)")
        }
    }

    @Test func preparingCanBeTurnedOff() throws {
        let connection = try PostgresConnection(url: TestDatabase.url(), preparedStatements: 0)
        _ = try connection.query("SELECT \(1)")
        _ = try connection.query("SELECT \(1)")
        #expect(connection.preparedStatementCount == 0)
    }
}
