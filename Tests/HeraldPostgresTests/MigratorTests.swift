import Foundation
import HeraldPostgres
import Synchronization
import Testing

/// A temporary folder of migration files.
private final class MigrationFolder {
    let path = NSTemporaryDirectory() + "herald-migrations-" + UUID().uuidString

    init(_ files: [String: String]) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        for (name, sql) in files { try write(name, sql) }
    }

    func write(_ name: String, _ sql: String) throws {
        try sql.write(toFile: path + "/" + name, atomically: true, encoding: .utf8)
    }

    func remove(_ name: String) throws {
        try FileManager.default.removeItem(atPath: path + "/" + name)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

private let threeMigrations = [
    "0001_create_items.sql": "CREATE TABLE items (n int8 PRIMARY KEY);\nCREATE TABLE runs (id serial);",
    "0002_seed.sql": "INSERT INTO items VALUES (1); INSERT INTO runs DEFAULT VALUES;",
    "0003_add_label.sql": "ALTER TABLE items ADD COLUMN label text NOT NULL DEFAULT 'x';",
    "README.md": "not a migration",
]

@Suite struct MigratorTests {
    @Test func appliesInNumberOrderOnceAndRecordsChecksums() throws {
        let schema = try TestSchema()
        defer { schema.drop() }
        let folder = try MigrationFolder(threeMigrations)
        let connection = try schema.connect()
        let migrator = Migrator(directory: folder.path)

        let applied = try migrator.migrate(connection)
        #expect(applied.map(\.version) == [1, 2, 3])
        #expect(applied.map(\.name) == ["create_items", "seed", "add_label"])
        #expect(applied.allSatisfy { $0.checksum.count == 64 })
        #expect(try migrator.migrate(connection).isEmpty)
        #expect(try connection.query("SELECT count(*) FROM runs")[0].decode(Int.self, at: 0) == 1)
        #expect(try migrator.status(connection).map(\.state) == [.applied, .applied, .applied])

        // A new file is applied on the next run, alone.
        try folder.write("0004_more.sql", "INSERT INTO items (n, label) VALUES (2, 'two');")
        #expect(try migrator.status(connection).last?.state == .pending)
        #expect(try migrator.migrate(connection).map(\.version) == [4])
    }

    @Test func theChecksumIsTheFilesSHA256() throws {
        let folder = try MigrationFolder(["0001_a.sql": "abc"])
        let migration = try #require(try Migrator(directory: folder.path).migrations().first)
        #expect(migration.checksum == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func refusesAnAppliedMigrationThatWasEdited() throws {
        let schema = try TestSchema()
        defer { schema.drop() }
        let folder = try MigrationFolder(threeMigrations)
        let connection = try schema.connect()
        let migrator = Migrator(directory: folder.path)
        try migrator.migrate(connection)

        try folder.write("0002_seed.sql", "INSERT INTO items VALUES (1), (99);")
        try folder.write("0004_next.sql", "CREATE TABLE never (n int);")
        let error = try #require(throws: MigrationError.self) { try migrator.migrate(connection) }
        #expect(error.reason == .checksumMismatch)
        #expect(error.file == "0002_seed.sql")
        #expect(error.description.contains("0002_seed.sql"))
        #expect(try migrator.status(connection).map(\.state) == [.applied, .changed, .applied, .pending])
        // Nothing after the problem was applied.
        #expect(try connection.query("SELECT to_regclass('never') IS NULL")[0].decode(Bool.self, at: 0))
    }

    @Test func refusesARecordedMigrationWhoseFileIsGone() throws {
        let schema = try TestSchema()
        defer { schema.drop() }
        let folder = try MigrationFolder(threeMigrations)
        let connection = try schema.connect()
        let migrator = Migrator(directory: folder.path)
        try migrator.migrate(connection)
        try folder.remove("0003_add_label.sql")
        let error = try #require(throws: MigrationError.self) { try migrator.migrate(connection) }
        #expect(error.reason == .missingFile)
        #expect(error.description.contains("add_label"))
    }

    @Test func refusesGapsDuplicatesAndBadNamesBeforeTouchingTheDatabase() throws {
        let gap = try MigrationFolder(["0001_a.sql": "", "0003_c.sql": ""])
        let gapError = try #require(throws: MigrationError.self) { try Migrator(directory: gap.path).migrations() }
        #expect(gapError.reason == .gap && gapError.description.contains("0003_c.sql"))

        let duplicate = try MigrationFolder(["0001_a.sql": "", "0002_b.sql": "", "002_b_again.sql": ""])
        let duplicateError = try #require(throws: MigrationError.self) { try Migrator(directory: duplicate.path).migrations() }
        #expect(duplicateError.reason == .duplicateVersion)
        #expect(duplicateError.description.contains("0002_b.sql") && duplicateError.description.contains("002_b_again.sql"))

        let badName = try MigrationFolder(["0001_a.sql": "", "second.sql": ""])
        let badNameError = try #require(throws: MigrationError.self) { try Migrator(directory: badName.path).migrations() }
        #expect(badNameError.reason == .badFileName && badNameError.file == "second.sql")

        #expect(throws: MigrationError.self) { try Migrator(directory: "/nonexistent/herald").migrations() }
    }

    @Test func aFailingMigrationNamesItsFileAndLeavesNoTrace() throws {
        let schema = try TestSchema()
        defer { schema.drop() }
        let folder = try MigrationFolder([
            "0001_ok.sql": "CREATE TABLE ok (n int);",
            "0002_broken.sql": "CREATE TABLE half (n int);\nSELEC 1;",
        ])
        let connection = try schema.connect()
        let migrator = Migrator(directory: folder.path)
        let error = try #require(throws: MigrationError.self) { try migrator.migrate(connection) }
        #expect(error.reason == .failed && error.file == "0002_broken.sql")
        #expect(error.postgresError?.code == .syntaxError)
        #expect(error.description.contains("0002_broken.sql") && error.description.contains("syntax error"))
        #expect(try migrator.status(connection).map(\.state) == [.applied, .pending])
        #expect(try connection.query("SELECT to_regclass('half') IS NULL")[0].decode(Bool.self, at: 0))
        // Fixed, it applies.
        try folder.write("0002_broken.sql", "CREATE TABLE half (n int);")
        #expect(try migrator.migrate(connection).map(\.version) == [2])
    }

    @Test func migratorsRacingOnOneDatabaseApplyEachMigrationOnce() throws {
        let schema = try TestSchema()
        defer { schema.drop() }
        let folder = try MigrationFolder(threeMigrations)
        let migrator = Migrator(directory: folder.path)
        let results = Mutex<[Result<[Int], any Error>]>([])
        let start = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        let url = schema.url
        for _ in 0..<4 {
            done.enter()
            Thread {
                defer { done.leave() }
                let result = Result { () throws -> [Int] in
                    let connection = try PostgresConnection(url: url)
                    start.wait()
                    return try migrator.migrate(connection).map(\.version)
                }
                results.withLock { $0.append(result) }
            }.start()
        }
        for _ in 0..<4 { start.signal() }
        done.wait()
        let versions = try results.withLock { try $0.map { try $0.get() } }
        #expect(versions.count == 4)
        #expect(versions.flatMap { $0 }.sorted() == [1, 2, 3])
        let connection = try schema.connect()
        #expect(try connection.query("SELECT count(*) FROM runs")[0].decode(Int.self, at: 0) == 1)
        #expect(try connection.query("SELECT count(*) FROM schema_migrations")[0].decode(Int.self, at: 0) == 3)
    }

    /// The lock is a transaction's: a migrator waits while another transaction holds it, says so
    /// every few seconds, goes on once it ends, and its session keeps no lock afterwards (behind a
    /// pooler a session's lock outlived the run on a shared server connection).
    @Test(.timeLimit(.minutes(2)))
    func aMigratorWaitsForAnotherTransactionsLockSaysSoAndKeepsNoLockAfter() throws {
        let schema = try TestSchema()
        defer { schema.drop() }
        let folder = try MigrationFolder(threeMigrations)
        let holder = try schema.connect()
        _ = try holder.execute("BEGIN")
        _ = try holder.query("SELECT pg_advisory_xact_lock(\(Migrator.advisoryLockKey))")
        let told = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        // What the migrator applied, then the advisory locks its own session still holds: asked
        // on that session, as other suites' migrators take the same key on this server at once.
        let outcome = Mutex<Result<(versions: [Int], locksKept: Int), any Error>?>(nil)
        let url = schema.url
        let migrator = Migrator(directory: folder.path)
        Thread {
            let result = Result { () throws -> (versions: [Int], locksKept: Int) in
                let connection = try PostgresConnection(url: url)
                defer { connection.close() }
                let versions = try migrator.migrate(connection) { _ in told.signal() }.map(\.version)
                let locksKept = try connection.query("""
                    SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()
                    """)[0].decode(Int.self, at: 0)
                return (versions, locksKept)
            }
            outcome.withLock { $0 = result }
            finished.signal()
        }.start()
        #expect(told.wait(timeout: .now() + 60) == .success, "the waiting migrator never said it waits")
        #expect(outcome.withLock { $0 == nil })
        _ = try holder.execute("COMMIT")
        #expect(finished.wait(timeout: .now() + 60) == .success)
        let result = try outcome.withLock { try $0?.get() }
        #expect(result?.versions == [1, 2, 3])
        #expect(result?.locksKept == 0, "the migrator's session kept the migration lock")
    }
}
