/// Everything Herald reads from its environment, with safe defaults. The README's configuration
/// table lists the same variables; `HeraldConfigurationTests` keeps the defaults honest.
public struct HeraldConfiguration: Sendable, Equatable {
    /// libpq connection URL or conninfo string.
    public var databaseURL: String
    public var host: String
    public var port: Int
    /// Folder of numbered SQL migrations.
    public var migrationsDirectory: String
    /// Whether `herald serve` applies missing migrations before it listens.
    public var migrateOnStart: Bool
    /// Folder of static files served under /static and the OpenAPI document.
    public var publicDirectory: String
    public var databasePoolSize: Int
    public var handlerThreads: Int
    /// Requests waiting for a handler beyond this get 503 with Retry-After.
    public var handlerQueueLimit: Int
    public var eventLoops: Int?
    public var maxBodyBytes: Int
    /// Path of a Google service-account JSON key; without one, sending is not configured.
    public var serviceAccountKeyPath: String?
    /// Base URL of the FCM v1 API (the emulator's in development).
    public var fcmBaseURL: String
    /// Overrides the key's token_uri (the emulator's in development).
    public var oauthTokenURL: String?
    /// Whether this process runs the scheduler and delivery workers (they also need a sender).
    public var schedulerEnabled: Bool
    /// Delivery worker threads in this process.
    public var deliveryWorkers: Int
    /// Seconds a worker's claim on deliveries lasts; a crashed worker's deliveries are taken over after it.
    public var deliveryLeaseSeconds: Int
    /// Deliveries a worker claims and sends per round.
    public var deliveryBatchSize: Int
    /// Seconds between the scheduler's fallback polls (LISTEN/NOTIFY wakes it at once otherwise).
    public var schedulerPollSeconds: Int
    /// How many audience-bucket topics apps subscribe to (one each) for A/B tests; see the README.
    public var audienceBuckets: Int
    /// Whether the session cookie is marked `Secure` (turn on when served over TLS, e.g. behind a TLS proxy).
    public var cookieSecure: Bool
    /// A browser session ends after this many seconds without a request (sliding).
    public var sessionIdleSeconds: Int
    /// A browser session ends this many seconds after sign-in, however active.
    public var sessionLifetimeSeconds: Int
    /// Failed sign-ins for one account within the window that lock it until the window passes
    /// (one address gets five times as many, across accounts).
    public var signInMaxFailures: Int
    /// The sign-in rate-limit window, in seconds.
    public var signInWindowSeconds: Int
    /// Whether the client's address is the last `X-Forwarded-For` entry (behind a proxy that sets
    /// it, like deploy/nginx) rather than the peer's. Only turn on when no one can reach Herald directly.
    public var trustForwardedFor: Bool

    public static let defaultDatabaseURL = "postgresql://herald@127.0.0.1:55433/herald"

    /// Reads the configuration; an unparsable value is an error that names the variable.
    public init(environment: [String: String]) throws(ConfigurationError) {
        func string(_ name: String, _ fallback: String) -> String {
            guard let value = environment[name], !value.isEmpty else { return fallback }
            return value
        }
        func optional(_ name: String) -> String? {
            guard let value = environment[name], !value.isEmpty else { return nil }
            return value
        }
        func integer(_ name: String, _ fallback: Int, _ range: ClosedRange<Int>) throws(ConfigurationError) -> Int {
            guard let text = optional(name) else { return fallback }
            guard let value = Int(text), range.contains(value) else {
                throw ConfigurationError(variable: name, value: text, expected: "a whole number from \(range.lowerBound) to \(range.upperBound)")
            }
            return value
        }
        func boolean(_ name: String, _ fallback: Bool) throws(ConfigurationError) -> Bool {
            guard let text = optional(name) else { return fallback }
            switch text.lowercased() {
            case "1", "true", "yes", "on": return true
            case "0", "false", "no", "off": return false
            default: throw ConfigurationError(variable: name, value: text, expected: "true or false")
            }
        }

        databaseURL = string("DATABASE_URL", Self.defaultDatabaseURL)
        host = string("HERALD_HOST", "127.0.0.1")
        port = try integer("HERALD_PORT", 8080, 0...65535)
        migrationsDirectory = string("HERALD_MIGRATIONS_DIR", "Migrations")
        migrateOnStart = try boolean("HERALD_MIGRATE_ON_START", true)
        publicDirectory = string("HERALD_PUBLIC_DIR", "Public")
        databasePoolSize = try integer("HERALD_DB_POOL_SIZE", 10, 1...500)
        handlerThreads = try integer("HERALD_HANDLER_THREADS", 16, 1...1024)
        handlerQueueLimit = try integer("HERALD_HANDLER_QUEUE_LIMIT", 1024, 1...1_000_000)
        eventLoops = optional("HERALD_EVENT_LOOPS") == nil ? nil : try integer("HERALD_EVENT_LOOPS", 1, 1...256)
        maxBodyBytes = try integer("HERALD_MAX_BODY_BYTES", 1 << 20, 1024...(64 << 20))
        serviceAccountKeyPath = optional("HERALD_SERVICE_ACCOUNT_KEY") ?? optional("GOOGLE_APPLICATION_CREDENTIALS")
        fcmBaseURL = string("HERALD_FCM_BASE_URL", "https://fcm.googleapis.com")
        oauthTokenURL = optional("HERALD_OAUTH_TOKEN_URL")
        schedulerEnabled = try boolean("HERALD_SCHEDULER", true)
        deliveryWorkers = try integer("HERALD_DELIVERY_WORKERS", 2, 1...64)
        deliveryLeaseSeconds = try integer("HERALD_DELIVERY_LEASE_SECONDS", 60, 1...3600)
        deliveryBatchSize = try integer("HERALD_DELIVERY_BATCH_SIZE", 32, 1...1000)
        schedulerPollSeconds = try integer("HERALD_SCHEDULER_POLL_SECONDS", 10, 1...3600)
        audienceBuckets = try integer("HERALD_AUDIENCE_BUCKETS", 20, 2...100)
        cookieSecure = try boolean("HERALD_COOKIE_SECURE", false)
        sessionIdleSeconds = try integer("HERALD_SESSION_IDLE_SECONDS", 8 * 3600, 60...(30 * 86400))
        sessionLifetimeSeconds = try integer("HERALD_SESSION_LIFETIME_SECONDS", 7 * 86400, 60...(365 * 86400))
        signInMaxFailures = try integer("HERALD_SIGNIN_MAX_FAILURES", 10, 1...1000)
        signInWindowSeconds = try integer("HERALD_SIGNIN_WINDOW_SECONDS", 15 * 60, 1...86400)
        trustForwardedFor = try boolean("HERALD_TRUST_FORWARDED_FOR", false)
    }
}

/// A configuration value Herald cannot use, said so that the operator can fix it.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    public let variable: String
    public let value: String
    public let expected: String

    public var description: String { "\(variable)=\"\(value)\" is not valid: expected \(expected)" }
}
