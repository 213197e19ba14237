import HeraldPostgres

/// Rate limit on failed sign-ins, kept in PostgreSQL so that every instance counts the same
/// failures. An account with `maxFailures` failures within the window is locked, even for the
/// right password, until the oldest of them leaves the window; one address gets five times as
/// many across all accounts (so guessing many accounts from one place is slowed too).
/// Refused attempts while locked are not counted, so the lock ends when the window passes.
public struct SignInThrottle: Sendable {
    let maxFailures: Int
    let windowSeconds: Int

    public init(maxFailures: Int, windowSeconds: Int) {
        self.maxFailures = maxFailures
        self.windowSeconds = windowSeconds
    }

    var maxFailuresPerAddress: Int { maxFailures * 5 }

    /// Whether a sign-in for `email` from `address` must be refused without checking the password.
    func isLocked(email: String, address: String, on connection: PostgresConnection) throws -> Bool {
        let rows = try connection.query("""
            SELECT
              (SELECT count(*) FROM sign_in_failures
                WHERE email = \(email.lowercased()) AND failed_at > now() - make_interval(secs => \(windowSeconds))),
              (SELECT count(*) FROM sign_in_failures
                WHERE address = \(address) AND failed_at > now() - make_interval(secs => \(windowSeconds)))
            """)
        guard let row = rows.first else { return false }
        return try row.decode(Int.self, at: 0) >= maxFailures || row.decode(Int.self, at: 1) >= maxFailuresPerAddress
    }

    func recordFailure(email: String, address: String, on connection: PostgresConnection) throws {
        _ = try connection.execute("INSERT INTO sign_in_failures (email, address) VALUES (\(email.lowercased()), \(address))")
        // Old rows say nothing any more; sweeping them here keeps the table small without a timer.
        _ = try connection.execute("""
            DELETE FROM sign_in_failures WHERE failed_at < now() - make_interval(secs => \(windowSeconds)) - interval '1 hour'
            """)
    }

    /// A successful sign-in forgives the account's earlier failures.
    func clear(email: String, on connection: PostgresConnection) throws {
        _ = try connection.execute("DELETE FROM sign_in_failures WHERE email = \(email.lowercased())")
    }
}
