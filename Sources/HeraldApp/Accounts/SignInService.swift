import HeraldCrypto
import HeraldPostgres

/// Signing in and out. The password is checked with no database connection held: PBKDF2 takes a
/// good part of a second on purpose, and ten sign-ins holding the pool's ten connections would
/// stop every other request. A sign-in is three short steps: reserve (the attempt counted
/// against the lock, atomically) and read the credentials,
/// hash (no connection), write (the audit entry of a failure, or the new session with its entry).
public struct SignInService: Sendable {
    let database: Database
    let log: Log
    let throttle: SignInThrottle
    let sessions: SessionStore
    let credentials: CredentialCache?
    let users = UserStore()
    let audit = AuditLog()

    /// A new browser session: the cookie's id, its CSRF token, and who it is.
    public struct SignedIn: Sendable {
        public var sessionID: SessionID
        public var viewer: Viewer
    }

    /// How long a new session lasts, for the cookie's Max-Age.
    public var sessionLifetimeSeconds: Int { sessions.lifetimeSeconds }

    init(database: Database, log: Log, throttle: SignInThrottle, sessions: SessionStore, credentials: CredentialCache? = nil) {
        self.database = database
        self.log = log
        self.throttle = throttle
        self.sessions = sessions
        self.credentials = credentials
    }

    /// Signs `email` in from `address`, ending `previousSession` if the browser had one (a session
    /// id from before sign-in is never reused). Wrong credentials are `.notAllowed`, a locked
    /// account `.rateLimited`; both say only what a stranger may know.
    public func signIn(email: String, password: String, address: String, previousSession: SessionID?) throws -> SignedIn {
        let (reserved, found) = try database.read { connection in
            (try throttle.reserveAttempt(email: email, address: address, on: connection),
             try users.credentials(email: email, on: connection))
        }
        if !reserved {
            // Logged, not audited: a locked account under attack would otherwise fill the audit log.
            log.warning("sign-in refused: too many failures", ["email_sha256": .string(Self.logged(email)), "address": .string(address)])
            let minutes = max(1, (throttle.windowSeconds + 59) / 60)
            throw AppError.rateLimited("Too many failed sign-ins. Try again in up to \(minutes) minute\(minutes == 1 ? "" : "s").",
                                       retryAfterSeconds: throttle.windowSeconds)
        }
        // Hash even for an unknown e-mail, so the answer's timing does not reveal which accounts exist.
        let matches = PasswordHash.verify(password, against: found?.passwordHash ?? PasswordHash.decoy)
        guard let user = found?.user, matches, !user.disabled else {
            // The attempt was counted as a failure when it was reserved; only the audit entry is left.
            try database.read { connection in
                try audit.record(.signInFailed, by: Actor(name: email, address: address), on: connection)
            }
            log.warning("sign-in failed", ["email_sha256": .string(Self.logged(email)), "address": .string(address)])
            throw AppError.notAllowed("That e-mail address and password do not match.")
        }
        let signedIn = try database.transaction { connection in
            try throttle.clear(email: email, on: connection)
            if let previousSession { try sessions.delete(sessionID: previousSession, on: connection) }
            let session = try sessions.create(userID: user.id, on: connection)
            let viewer = Viewer(userID: user.id, email: user.email, role: user.role, csrfToken: session.csrfToken)
            try audit.record(.signInSucceeded, by: viewer.actor(address: address), on: connection)
            return SignedIn(sessionID: session.id, viewer: viewer)
        }
        log.info("signed in", ["email": .string(user.email), "address": .string(address)])
        return signedIn
    }

    /// A typed e-mail as failure logs keep it: hashed, since a user who types a password into
    /// the e-mail field would otherwise leave it in the logs. The same address hashes the same,
    /// so an attack on one account can still be followed.
    static func logged(_ email: String) -> String { SHA256.hex(email.lowercased()) }

    /// Ends the session for good.
    public func signOut(sessionID: SessionID?, by actor: Actor) throws {
        try database.transaction { connection in
            if let sessionID { try sessions.delete(sessionID: sessionID, on: connection) }
            try audit.record(.signOut, by: actor, on: connection)
        }
        if let sessionID { credentials?.forget(CredentialCache.sessionKey(sessionID)) }
    }
}

/// Who a request's credentials belong to: a browser session or an API key.
public struct Authenticator: Sendable {
    let database: Database
    let sessions: SessionStore
    let keys = APIKeyStore()
    let cache: CredentialCache?

    init(database: Database, sessions: SessionStore, cache: CredentialCache?) {
        self.database = database
        self.sessions = sessions
        self.cache = cache
    }

    /// The signed-in user of a live session, if any.
    public func viewer(sessionID: SessionID) throws -> Viewer? {
        let key = CredentialCache.sessionKey(sessionID)
        if let viewer = cache?.viewer(key) { return viewer }
        guard let (viewer, remaining) = try database.read({ try sessions.viewer(sessionID: sessionID, on: $0) }) else { return nil }
        cache?.remember(viewer, for: key, validFor: remaining)
        return viewer
    }

    /// The caller behind a live API key, if any.
    public func viewer(apiKey: String) throws -> Viewer? {
        guard apiKey.utf8.count < 128 else { return nil }
        let key = CredentialCache.apiKeyKey(apiKey)
        if let viewer = cache?.viewer(key) { return viewer }
        guard let viewer = try database.read({ try keys.viewer(key: apiKey, on: $0) }) else { return nil }
        cache?.remember(viewer, for: key)
        return viewer
    }
}
