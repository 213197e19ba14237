import HeraldCrypto
import HeraldPostgres
import HeraldSync
import Synchronization

/// The sessions and API keys this process has checked, kept for a short time so that a request
/// needs no query to know who sent it. Correctness comes first: the cache answers only while its
/// listener hears the database's `herald_auth` notifications (migration 0007 sends one whenever a
/// key is revoked, a session ends or a user changes), so a revoked key stops working on every
/// instance within the listener's reaction time; a lost connection empties and disables it.
public final class CredentialCache: Sendable {
    struct Entry: Sendable {
        let viewer: Viewer
        let expires: ContinuousClock.Instant
    }

    /// How long an entry is trusted before the database is asked again (which also refreshes a
    /// key's last use and a session's last activity).
    let lifetime: Duration
    let capacity: Int
    let entries = Locked<[String: Entry]>([:])
    /// True only while the listener is connected and listening.
    let listening = Atomic<Bool>(false)
    let stopping = Atomic<Bool>(false)
    let finished = ConditionLock(true)

    public static let channel = "herald_auth"

    public init(lifetime: Duration = .seconds(30), capacity: Int = 10_000) {
        self.lifetime = lifetime
        self.capacity = capacity
    }

    /// The cache key of a session id and of an API key: the same "<kind>:<sha256>" the database's
    /// notifications name them by (migration 0007).
    static func sessionKey(_ sessionID: SessionID) -> String { "session:" + SHA256.hex(sessionID.cookieValue) }
    static func apiKeyKey(_ apiKey: String) -> String { "key:" + SHA256.hex(apiKey) }

    /// The cached viewer of `key` ("session:<sha256>" or "key:<sha256>"), if still trusted.
    func viewer(_ key: String, now: ContinuousClock.Instant = .now) -> Viewer? {
        guard listening.load(ordering: .acquiring) else { return nil }
        return entries.withLock { entries in
            guard let entry = entries[key] else { return nil }
            guard entry.expires > now else {
                entries[key] = nil
                return nil
            }
            return entry.viewer
        }
    }

    /// Remembers `viewer` for `key`, for at most `lifetime` and never past `validFor`.
    func remember(_ viewer: Viewer, for key: String, validFor: Duration? = nil, now: ContinuousClock.Instant = .now) {
        guard listening.load(ordering: .acquiring) else { return }
        let expires = now + min(lifetime, validFor ?? lifetime)
        entries.withLock { entries in
            if entries.count >= capacity {
                entries = entries.filter { $0.value.expires > now }
                if entries.count >= capacity { entries.removeAll() }
            }
            entries[key] = Entry(viewer: viewer, expires: expires)
        }
    }

    /// Forgets what a `herald_auth` payload names: "key:<sha256>", "session:<sha256>",
    /// "user:<id>" (every session of that user) or "keyid:<id>"; anything else forgets everything.
    func forget(_ payload: String) {
        entries.withLock { entries in
            if payload.hasPrefix("key:") || payload.hasPrefix("session:") {
                entries[payload] = nil
            } else if payload.hasPrefix("user:") {
                let user = UserID(payload.dropFirst("user:".count))
                entries = entries.filter { $0.value.viewer.userID != user }
            } else if payload.hasPrefix("keyid:") {
                let key = APIKeyID(payload.dropFirst("keyid:".count))
                entries = entries.filter { $0.value.viewer.apiKeyID != key }
            } else {
                entries.removeAll()
            }
        }
    }

    func disable() {
        listening.store(false, ordering: .releasing)
        entries.withLock { $0.removeAll() }
    }

    /// Listens on a connection of its own until `stop()`; the cache answers only meanwhile.
    public func start(databaseURL: String, log: Log) {
        stopping.store(false, ordering: .releasing)
        finished.withLock { $0 = false }
        do {
            try startThread(name: "herald-auth") { [self] in
                listen(databaseURL: databaseURL, log: log)
                disable()
                finished.withLock { $0 = true }
                finished.broadcast()
            }
        } catch {
            finished.withLock { $0 = true }
            log.warning("no credential cache: \(error)")
        }
    }

    public func stop() {
        stopping.store(true, ordering: .releasing)
        _ = finished.wait { $0 ? true : nil }
    }

    func listen(databaseURL: String, log: Log) {
        var listener: PostgresListener?
        var reconnections = 0
        while !stopping.load(ordering: .acquiring) {
            do {
                if listener == nil {
                    let fresh = try PostgresListener(url: databaseURL)
                    try fresh.listen(Self.channel)
                    listener = fresh
                    reconnections = fresh.reconnections
                    listening.store(true, ordering: .releasing)
                }
                let notification = try listener?.waitForNotification(timeout: .milliseconds(250))
                // A reconnection may have missed notifications: start again from nothing.
                if let listener, listener.reconnections != reconnections {
                    reconnections = listener.reconnections
                    entries.withLock { $0.removeAll() }
                }
                if let notification { forget(notification.payload) }
            } catch {
                disable()
                log.warning("credential cache listener: \(error)")
                listener?.close()
                listener = nil
                sleepThread(for: .milliseconds(500))
            }
        }
        listener?.close()
    }
}
