import Foundation

/// Applies the numbered SQL files of a folder to a database, each once, in order.
///
/// Each migration runs in its own transaction and is recorded in `schema_migrations` (in the
/// connection's current schema) with the SHA-256 of its file. Each of those transactions takes a
/// transaction-level advisory lock first and reads what is applied again, so instances starting
/// together apply each migration exactly once: the others wait, then find nothing left to do. The
/// lock ends with its transaction, whatever happens to the session: behind a pooler in transaction
/// mode (pgbouncer) a session-level lock once outlived the run on a pooled server connection and
/// held every later start. An applied file that has since changed, or is gone, stops the run
/// before anything is applied. Statements that cannot run in a transaction
/// (`CREATE INDEX CONCURRENTLY`) are not supported.
public struct Migrator: Sendable {
    /// The folder of `NNNN_name.sql` files.
    public let directory: String

    /// The advisory lock key held while migrating (ASCII "HeraldMg").
    public static let advisoryLockKey: Int64 = 0x4865_7261_6C64_4D67

    /// A migrator for the files in `directory`.
    public init(directory: String) {
        self.directory = directory
    }

    /// The migration files, read and checked (names, gaps, duplicates), without a database.
    public func migrations() throws -> [Migration] {
        try Migration.load(from: directory)
    }

    /// Applies what is missing; returns what it applied (empty when the database was current).
    /// While another instance migrates, `waiting` is told every few seconds how long it has waited.
    @discardableResult
    public func migrate(_ connection: PostgresConnection, waiting: (Int) -> Void = { _ in }) throws -> [AppliedMigration] {
        let migrations = try migrations()
        var applied: [AppliedMigration] = []
        // One migration a transaction, each under the lock: the next is chosen inside it.
        while let done = try connection.transaction({ connection -> AppliedMigration? in
            try lock(connection, waiting: waiting)
            try connection.executeScript("""
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version bigint PRIMARY KEY,
                    name text NOT NULL,
                    checksum text NOT NULL,
                    applied_at timestamptz NOT NULL DEFAULT now()
                )
                """)
            let recorded = try appliedMigrations(connection)
            try check(migrations, against: recorded)
            let done = Set(recorded.map(\.version))
            guard let next = migrations.first(where: { !done.contains($0.version) }) else { return nil }
            return try apply(next, on: connection)
        }) {
            applied.append(done)
        }
        return applied
    }

    /// Takes the migration lock for this transaction, waiting while another holds it.
    private func lock(_ connection: PostgresConnection, waiting: (Int) -> Void) throws {
        let clock = ContinuousClock()
        let start = clock.now
        var told = 0
        // A try in a loop, not a blocking wait: the waiter can say what it waits for.
        while try !connection.query("SELECT pg_try_advisory_xact_lock(\(Self.advisoryLockKey))")[0].decode(Bool.self, at: 0) {
            let waited = Int((clock.now - start).components.seconds)
            if waited >= told + 5 {
                told = waited
                waiting(waited)
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
    }

    /// Stops on an applied migration whose file changed or is gone.
    private func check(_ migrations: [Migration], against recorded: [AppliedMigration]) throws {
        for status in Self.compare(migrations, recorded) {
            switch status.state {
            case .changed:
                let file = status.migration?.fileName ?? "\(status.version)"
                throw MigrationError(
                    .checksumMismatch, file: file,
                    "\(file) in \(directory) changed after it was applied (checksum \(status.applied?.checksum ?? "") recorded, \(status.migration?.checksum ?? "") now); add a new migration instead of editing an applied one")
            case .fileMissing:
                throw MigrationError(
                    .missingFile, file: nil,
                    "migration \(status.version) (\(status.name)) was applied but no file in \(directory) has that number")
            case .applied, .pending:
                continue
            }
        }
    }

    /// Each file and each record, side by side, in version order. Does not change the database.
    public func status(_ connection: PostgresConnection) throws -> [MigrationStatus] {
        let migrations = try migrations()
        let exists = try connection.query("SELECT to_regclass('schema_migrations') IS NOT NULL")[0].decode(Bool.self, at: 0)
        return Self.compare(migrations, exists ? try appliedMigrations(connection) : [])
    }

    /// Runs `migration` and records it, in the transaction (and under the lock) `migrate` opened.
    private func apply(_ migration: Migration, on connection: PostgresConnection) throws -> AppliedMigration {
        do {
            try connection.executeScript(migration.sql)
            let row = try connection.query("""
                INSERT INTO schema_migrations (version, name, checksum)
                VALUES (\(migration.version), \(migration.name), \(migration.checksum))
                RETURNING applied_at
                """)[0]
            return AppliedMigration(
                version: migration.version, name: migration.name, checksum: migration.checksum,
                appliedAt: try row.decode(Date.self, at: 0))
        } catch let error as PostgresError {
            throw MigrationError(.failed, file: migration.fileName, "migration \(migration.fileName) failed", postgresError: error)
        }
    }

    private func appliedMigrations(_ connection: PostgresConnection) throws -> [AppliedMigration] {
        try connection.query("SELECT version, name, checksum, applied_at FROM schema_migrations ORDER BY version").map { row in
            let (version, name, checksum, appliedAt) = try row.decode((Int, String, String, Date).self)
            return AppliedMigration(version: version, name: name, checksum: checksum, appliedAt: appliedAt)
        }
    }

    static func compare(_ migrations: [Migration], _ recorded: [AppliedMigration]) -> [MigrationStatus] {
        let files = Dictionary(migrations.map { ($0.version, $0) }, uniquingKeysWith: { first, _ in first })
        let records = Dictionary(recorded.map { ($0.version, $0) }, uniquingKeysWith: { first, _ in first })
        return Set(files.keys).union(records.keys).sorted().map { version in
            let file = files[version], record = records[version]
            let state: MigrationStatus.State
            switch (file, record) {
            case (let file?, let record?): state = file.checksum == record.checksum ? .applied : .changed
            case (_?, nil): state = .pending
            default: state = .fileMissing
            }
            return MigrationStatus(
                version: version, name: file?.name ?? record?.name ?? "", state: state, migration: file, applied: record)
        }
    }
}
