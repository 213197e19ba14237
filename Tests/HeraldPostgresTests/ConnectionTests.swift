import HeraldTestSupport
import Foundation
import HeraldPostgres
import Testing

@Suite struct ConnectionTests {
    @Test func bindsOfEveryTypeRoundTrip() throws {
        let schema = try TestSchema()
        defer { schema.drop() }
        let connection = try schema.connect()
        try connection.executeScript("""
            CREATE TABLE everything (
                t text, i int8, i4 int4, d float8, b bool, bytes bytea, at timestamptz,
                id uuid, doc jsonb, tags text[])
            """)
        let text = "héllo 🌍 \"quoted\" 'single' \\ back"
        let bytes: [UInt8] = [0, 1, 0, 255, 0x5c, 0x78, 0]
        let date = Date(timeIntervalSince1970: 1_795_000_000.123456)
        let id = UUID()
        let tags = ["a", "b c", "\"q\"", "back\\slash", "NULL", "", "{x,y}", "ünï"]
        let inserted = try connection.execute("""
            INSERT INTO everything VALUES (\(text), \(Int.max), \(Int32.min), \(-1.5e-7), \(true),
                \(bytes), \(date), \(id), \(PostgresJSONB("{\"k\": [1, 2]}")), \(tags))
            """)
        #expect(inserted == 1)

        let row = try #require(try connection.query("SELECT * FROM everything").single())
        #expect(try row.decode(String.self, column: "t") == text)
        #expect(try row.decode(Int.self, column: "i") == Int.max)
        #expect(try row.decode(Int64.self, column: "i") == Int64.max)
        #expect(try row.decode(Int32.self, column: "i4") == Int32.min)
        #expect(try row.decode(Double.self, column: "d") == -1.5e-7)
        #expect(try row.decode(Bool.self, column: "b") == true)
        #expect(try row.decode([UInt8].self, column: "bytes") == bytes)
        #expect(try row.decode(Date.self, column: "at") == date)
        #expect(try row.decode(UUID.self, column: "id") == id)
        #expect(try row.decode(PostgresJSONB.self, column: "doc") == PostgresJSONB("{\"k\": [1, 2]}"))
        #expect(try row.decode([String].self, column: "tags") == tags)
    }

    /// A row read by column names reads the same whatever order the SELECT lists them in, and a
    /// name the result lacks, or a tuple of another size, is an error that says so.
    @Test func tuplesReadByColumnNameIgnoreTheSelectsOrder() throws {
        let schema = try TestSchema()
        defer { schema.drop() }
        let connection = try schema.connect()
        let forward = try connection.query("SELECT n, n * 10 AS tens, 'row ' || n AS label FROM generate_series(1, 3) AS n ORDER BY n")
        let backward = try connection.query("SELECT 'row ' || n AS label, n * 10 AS tens, n FROM generate_series(1, 3) AS n ORDER BY n")
        for rows in [forward, backward] {
            let read = try rows.map { try $0.decode((Int, String, Int).self, columns: "n", "label", "tens") }
            #expect(read.map(\.0) == [1, 2, 3] && read.map(\.1) == ["row 1", "row 2", "row 3"] && read.map(\.2) == [10, 20, 30])
        }
        let row = try #require(forward.first)
        #expect(throws: PostgresDecodingError.self) { try row.decode((Int, String).self, columns: "n", "name") }
        do {
            _ = try row.decode((Int, String).self, columns: "n", "nmae")
        } catch let error as PostgresDecodingError {
            #expect(error.column == "nmae" && error.reason == "the result has no such column")
        }
        #expect(throws: PostgresDecodingError.self) { try row.decode((Int, String).self, columns: "n", "label", "tens") }
    }

    /// A result read by position is checked once: its columns are the names given, in order.
    @Test func aResultReadByPositionChecksItsColumnsOnce() throws {
        let schema = try TestSchema()
        defer { schema.drop() }
        let connection = try schema.connect()
        let rows = try connection.query("SELECT 1 AS id, 'x' AS name")
        try rows.requireColumns(["id", "name"])
        do {
            try rows.requireColumns(["name", "id"])
            Issue.record("a swapped SELECT passed")
        } catch let error as PostgresDecodingError {
            #expect(error.column == "name" && error.reason == "it is column 2")
        }
        #expect(throws: PostgresDecodingError.self) { try rows.requireColumns(["id"]) }
        #expect(throws: PostgresDecodingError.self) { try rows.requireColumns(["id", "title"]) }
    }

    @Test func nullsOfEveryTypeRoundTrip() throws {
        let connection = try PostgresConnection(url: TestDatabase.url())
        let text: String? = nil, int: Int? = nil, double: Double? = nil, bool: Bool? = nil
        let bytes: [UInt8]? = nil, date: Date? = nil, id: UUID? = nil, tags: [String]? = nil
        let row = try #require(try connection.query("""
            SELECT \(text), \(int), \(double), \(bool), \(bytes), \(date), \(id), \(tags),
                   \(text) IS NULL AS typed_null_is_null
            """).first)
        let decoded = try row.decode((String?, Int?, Double?, Bool?, [UInt8]?, Date?, UUID?, [String]?, Bool).self)
        #expect(decoded.0 == nil && decoded.1 == nil && decoded.2 == nil && decoded.3 == nil)
        #expect(decoded.4 == nil && decoded.5 == nil && decoded.6 == nil && decoded.7 == nil)
        #expect(decoded.8 == true)
        #expect(throws: PostgresDecodingError.self) { try row.decode(String.self, at: 0) }
    }

    @Test func specialDoublesAndEmptyValuesRoundTrip() throws {
        let connection = try PostgresConnection(url: TestDatabase.url())
        let row = try #require(try connection.query("""
            SELECT \(Double.infinity), \(-Double.infinity), \(Double.nan), \(""), \([UInt8]()), \([String]())
            """).first)
        let (inf, minusInf, nan, empty, noBytes, noTags) = try row.decode((Double, Double, Double, String, [UInt8], [String]).self)
        #expect(inf == .infinity && minusInf == -.infinity && nan.isNaN)
        #expect(empty == "" && noBytes == [] && noTags == [])
    }

    @Test func datesKeepMicrosecondsAndReadAnyOffset() throws {
        let connection = try PostgresConnection(url: TestDatabase.url())
        try connection.executeScript("SET TimeZone TO 'Asia/Kolkata'")
        let date = Date(timeIntervalSince1970: 1_700_000_000.000001)
        let row = try #require(try connection.query("""
            SELECT \(date), \(date)::text, '2024-02-29 12:00:00.5-03:30'::timestamptz,
                   \(date) + interval '1 microsecond'
            """).first)
        let (same, asText, fromOffset, later) = try row.decode((Date, String, Date, Date).self)
        #expect(same == date)
        #expect(asText.hasSuffix("+05:30"))
        #expect(fromOffset == Date(timeIntervalSince1970: 1_709_220_600.5))
        #expect(later.timeIntervalSince(date) > 0.0000005)
    }

    @Test func injectionAttemptsStayData() throws {
        let schema = try TestSchema()
        defer { schema.drop() }
        let connection = try schema.connect()
        try connection.executeScript("CREATE TABLE users (name text)")
        let attacks = ["'; DROP TABLE users; --", "x' OR '1'='1", "$1", "\\'); DELETE FROM users; --"]
        for attack in attacks {
            try connection.execute("INSERT INTO users VALUES (\(attack))")
        }
        let names = try connection.query("SELECT name FROM users ORDER BY name").map { try $0.decode(String.self, at: 0) }
        #expect(names == attacks.sorted())
        let matches = try connection.query("SELECT count(*) FROM users WHERE name = \("x' OR '1'='1")")
        #expect(try matches[0].decode(Int.self, at: 0) == 1)
    }

    @Test func uniqueViolationSurfacesItsSQLStateWithoutLeakingValues() throws {
        let schema = try TestSchema()
        defer { schema.drop() }
        let connection = try schema.connect()
        try connection.executeScript("CREATE TABLE users (email text CONSTRAINT users_email_key UNIQUE)")
        try connection.execute("INSERT INTO users VALUES (\("secret@example.com"))")
        let error = try #require(throws: PostgresError.self) {
            try connection.execute("INSERT INTO users VALUES (\("secret@example.com"))")
        }
        #expect(error.code == .uniqueViolation)
        #expect(error.sqlState == "23505")
        #expect(error.constraintName == "users_email_key")
        #expect(!error.isConnectionFailure)
        #expect(!error.description.contains("secret@example.com"))
        #expect(error.detailedDescription.contains("secret@example.com"))
        // The connection is still usable after a failed statement.
        #expect(try connection.query("SELECT count(*) FROM users")[0].decode(Int.self, at: 0) == 1)
    }

    @Test func badInputIsRedactedInTheDescription() throws {
        let connection = try PostgresConnection(url: TestDatabase.url())
        let error = try #require(throws: PostgresError.self) {
            try connection.query("SELECT \("not-a-number-4711")::int8")
        }
        #expect(error.code == .invalidTextRepresentation)
        #expect(!error.description.contains("4711"))
        #expect(error.libpqMessage?.contains("4711") == true)
    }

    @Test func transactionCommitsOrRollsBackOnThrow() throws {
        struct Abort: Error {}
        let schema = try TestSchema()
        defer { schema.drop() }
        let connection = try schema.connect()
        try connection.executeScript("CREATE TABLE items (n int8)")
        #expect(throws: Abort.self) {
            try connection.transaction { connection in
                try connection.execute("INSERT INTO items VALUES (\(1))")
                throw Abort()
            }
        }
        #expect(!connection.isInTransaction)
        let committed = try connection.transaction { connection in
            try connection.execute("INSERT INTO items VALUES (\(2)), (\(3))")
        }
        #expect(committed == 2)
        let values = try connection.query("SELECT n FROM items ORDER BY n").map { try $0.decode(Int.self, at: 0) }
        #expect(values == [2, 3])
    }

    @Test func aCaughtFailureInsideATransactionDoesNotPassForACommit() throws {
        let schema = try TestSchema()
        defer { schema.drop() }
        let connection = try schema.connect()
        try connection.executeScript("CREATE TABLE items (n int8 PRIMARY KEY)")
        let error = try #require(throws: PostgresError.self) {
            try connection.transaction { connection in
                try connection.execute("INSERT INTO items VALUES (\(1))")
                _ = try? connection.execute("INSERT INTO items VALUES (\(1))")
            }
        }
        #expect(error.description.contains("rolled back"))
        #expect(try connection.query("SELECT count(*) FROM items")[0].decode(Int.self, at: 0) == 0)
        // Transactions do not nest: the inner call is refused, the outer one still commits.
        try connection.transaction { connection in
            try connection.execute("INSERT INTO items VALUES (\(2))")
            #expect(throws: PostgresError.self) { try connection.transaction { _ in } }
        }
        #expect(try connection.query("SELECT n FROM items")[0].decode(Int.self, at: 0) == 2)
    }

    @Test func decodeErrorsNameTheColumnAndTheType() throws {
        let connection = try PostgresConnection(url: TestDatabase.url())
        let row = try #require(try connection.query("SELECT 'abc'::text AS label, NULL::int8 AS missing").first)
        let wrongType = try #require(throws: PostgresDecodingError.self) { try row.decode(Int.self, column: "label") }
        #expect(wrongType.description.contains("\"label\"") && wrongType.description.contains("Int"))
        let null = try #require(throws: PostgresDecodingError.self) { try row.decode(Date.self, column: "missing") }
        #expect(null.description.contains("\"missing\"") && null.description.contains("NULL"))
        let absent = try #require(throws: PostgresDecodingError.self) { try row.decode(String.self, column: "Label") }
        #expect(absent.description.contains("no such column"))
        #expect(throws: PostgresDecodingError.self) { try row.decode((String, Int?, Int?).self) }
    }

    @Test func textWithNULIsRefusedNotTruncated() throws {
        let connection = try PostgresConnection(url: TestDatabase.url())
        let error = try #require(throws: PostgresError.self) { try connection.query("SELECT \("a\u{0}b")") }
        #expect(error.description.contains("$1"))
    }

    @Test func closedConnectionThrowsAndReportsUnhealthy() throws {
        let connection = try PostgresConnection(url: TestDatabase.url())
        #expect(connection.isHealthy)
        connection.close()
        #expect(!connection.isHealthy)
        #expect(throws: PostgresError.self) { try connection.query("SELECT 1") }
    }

    @Test func refusedConnectionIsAConnectionFailure() throws {
        let error = try #require(throws: PostgresError.self) {
            try PostgresConnection(url: "postgresql://herald@127.0.0.1:1/herald?connect_timeout=2")
        }
        #expect(error.isConnectionFailure)
    }
}
