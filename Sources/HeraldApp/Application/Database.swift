import HeraldPostgres

/// The services' way to the database: a pooled connection or a transaction, with the failures
/// that mean "PostgreSQL cannot be reached" turned into `AppError.unavailable` (nothing was
/// changed, try again), so no face has to know libpq's errors.
public struct Database: Sendable {
    public let pool: PostgresPool

    public init(pool: PostgresPool) { self.pool = pool }

    /// One connection for a read or a single statement.
    public func read<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try Self.mapped { try pool.withConnection(body) }
    }

    /// One transaction: everything in `body` commits together or not at all.
    public func transaction<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try Self.mapped { try pool.transaction(body) }
    }

    static func mapped<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as PostgresError where error.isConnectionFailure || error.kind == .poolExhausted {
            throw AppError.unavailable("The database cannot be reached right now; nothing was changed. Try again shortly.")
        } catch let error as PostgresError where error.code == .characterNotInRepertoire {
            // The faces refuse U+0000 where they parse input; this catches any path they miss.
            throw AppError.invalidField("", "Text may not contain the NUL character (U+0000).", code: "nul_character")
        }
    }
}
