import HeraldPostgres

/// Rate limit on failed sign-ins, kept in PostgreSQL so that every instance counts the same
/// failures. An account with `maxFailures` failures within the window is locked, even for the
/// right password, until the oldest of them leaves the window; one address gets five times as
/// many across all accounts (so guessing many accounts from one place is slowed too).
/// Refused attempts while locked are not counted, so the lock ends when the window passes.
struct SignInThrottle: Sendable {
    let maxFailures: Int
    let windowSeconds: Int

    init(maxFailures: Int, windowSeconds: Int) {
        self.maxFailures = maxFailures
        self.windowSeconds = windowSeconds
    }

    var maxFailuresPerAddress: Int { maxFailures * 5 }

    /// Counts this attempt as a failure before the password is checked, unless the account or
    /// the address is already locked (then nothing is counted and the answer is false). The
    /// count and the insert are one step per account (a transaction-scoped advisory lock), so
    /// forty parallel attempts check at most `maxFailures` passwords, not whatever raced past a
    /// count that others had not yet added to. A right password then clears the account's count.
    func reserveAttempt(email: String, address: String, on connection: PostgresConnection) throws -> Bool {
        try connection.transaction { connection in
            _ = try connection.query("SELECT pg_advisory_xact_lock(hashtext(\("herald.sign-in:" + email.lowercased())))")
            let (forAccount, forAddress) = try connection.query("""
                SELECT
                  (SELECT count(*) FROM sign_in_failures
                    WHERE email = \(email.lowercased()) AND failed_at > now() - make_interval(secs => \(windowSeconds))) AS for_account,
                  (SELECT count(*) FROM sign_in_failures
                    WHERE address = \(address) AND failed_at > now() - make_interval(secs => \(windowSeconds))) AS for_address
                """).map { try $0.decode((Int, Int).self, columns: "for_account", "for_address") }[0]
            guard forAccount < maxFailures, forAddress < maxFailuresPerAddress else { return false }
            _ = try connection.execute("INSERT INTO sign_in_failures (email, address) VALUES (\(email.lowercased()), \(address))")
            // Old rows say nothing any more; sweeping them here keeps the table small without a timer.
            _ = try connection.execute("""
                DELETE FROM sign_in_failures WHERE failed_at < now() - make_interval(secs => \(windowSeconds)) - interval '1 hour'
                """)
            return true
        }
    }

    /// A successful sign-in forgives the account's earlier failures.
    func clear(email: String, on connection: PostgresConnection) throws {
        _ = try connection.execute("DELETE FROM sign_in_failures WHERE email = \(email.lowercased())")
    }
}
