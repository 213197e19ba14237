import HeraldCrypto
import HeraldPostgres

/// Browser sessions in PostgreSQL. The cookie carries a random 256-bit id; the table holds only
/// its SHA-256, so a copy of the database cannot be replayed as a cookie.
struct SessionStore: Sendable {
    /// Idle expiry (sliding) and absolute expiry, in seconds.
    let idleSeconds: Int
    let lifetimeSeconds: Int

    public init(idleSeconds: Int, lifetimeSeconds: Int) {
        self.idleSeconds = idleSeconds
        self.lifetimeSeconds = lifetimeSeconds
    }

    /// A new session for `userID`: the id for the cookie and the CSRF token for forms.
    func create(userID: UserID, on connection: PostgresConnection) throws -> (id: SessionID, csrfToken: String) {
        let id = SessionID.random()
        _ = try connection.execute("""
            INSERT INTO sessions (id_sha256, user_id, expires_at)
            VALUES (\(SHA256.hex(id.cookieValue)), \(userID)::uuid, now() + make_interval(secs => \(lifetimeSeconds)))
            """)
        // Expired rows of anyone are swept now and then, here rather than on a timer.
        _ = try connection.execute("""
            DELETE FROM sessions WHERE expires_at < now()
               OR last_seen_at < now() - make_interval(secs => \(idleSeconds))
            """)
        return (id, Self.csrfToken(sessionID: id))
    }

    /// The signed-in user of a live session, sliding its idle expiry (at most one write a minute).
    /// The session's user, and how long the session stays valid without further activity (the
    /// sooner of its end and its idle timeout), if it is live.
    func viewer(sessionID: SessionID, on connection: PostgresConnection) throws -> (Viewer, Duration)? {
        let hash = SHA256.hex(sessionID.cookieValue)
        let rows = try connection.query("""
            SELECT u.id::text, u.email, u.role, u.language, s.last_seen_at < now() - interval '1 minute' AS stale,
                   extract(epoch FROM least(s.expires_at, now() + make_interval(secs => \(idleSeconds))) - now())::float8 AS remaining
            FROM sessions s JOIN users u ON u.id = s.user_id
            WHERE s.id_sha256 = \(hash) AND s.expires_at > now() AND NOT u.disabled
              AND s.last_seen_at > now() - make_interval(secs => \(idleSeconds))
            """)
        guard let (userID, email, role, language, stale, remaining) = try rows.first?.decode((UserID, String, Role, String?, Bool, Double).self, columns: "id", "email", "role", "language", "stale", "remaining") else {
            return nil
        }
        if stale {
            _ = try connection.execute("UPDATE sessions SET last_seen_at = now() WHERE id_sha256 = \(hash)")
        }
        return (Viewer(userID: userID, email: email, role: role, csrfToken: Self.csrfToken(sessionID: sessionID), language: language),
                .seconds(max(0, remaining)))
    }

    /// The session's CSRF token: a hash of its secret id under a label of its own, so it is never
    /// stored, cannot be told from the stored SHA-256 of the id, and changes with every sign-in.
    static func csrfToken(sessionID: SessionID) -> String {
        Base64URL.encode(SHA256.digest(Array("herald-csrf:\(sessionID.cookieValue)".utf8)))
    }

    /// Ends a session for good.
    func delete(sessionID: SessionID, on connection: PostgresConnection) throws {
        _ = try connection.execute("DELETE FROM sessions WHERE id_sha256 = \(SHA256.hex(sessionID.cookieValue))")
    }
}
