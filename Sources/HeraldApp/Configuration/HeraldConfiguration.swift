import Foundation
/// Everything Herald reads from its environment, with safe defaults, as the narrow settings each
/// part needs: only the wiring (`HeraldApplication`, `HeraldServer`, the command line) sees the
/// whole. The settings table of deploy/README.md lists the same variables; `HeraldConfigurationTests`
/// keeps the defaults honest.
public struct HeraldConfiguration: Sendable, Equatable {
    /// The variables as read: the web module reads its own settings from them (`WebSettings`).
    public let environment: [String: String]
    public var database: DatabaseSettings
    public var fcm: FCMSettings
    public var delivery: DeliverySettings
    public var accounts: AccountSettings
    public var webhooks: WebhookSettings

    static let defaultDatabaseURL = "postgresql://herald@127.0.0.1:55433/herald"
    static let googleFCMURL = "https://fcm.googleapis.com"

    /// Reads the configuration; an unparsable value is an error that names the variable.
    public init(environment: [String: String]) throws(ConfigurationError) {
        self.environment = environment
        let read = EnvironmentReader(environment)
        let url = read.string("DATABASE_URL", Self.defaultDatabaseURL)
        database = DatabaseSettings(
            url: url,
            poolSize: try read.integer("HERALD_DB_POOL_SIZE", 10, 1...500),
            migrationsDirectory: read.string("HERALD_MIGRATIONS_DIR", "Migrations"),
            migrateOnStart: try read.boolean("HERALD_MIGRATE_ON_START", true),
            preparedStatements: try read.boolean("HERALD_DB_PREPARED_STATEMENTS", true),
            listenURL: read.optional("HERALD_LISTEN_DATABASE_URL") ?? url)
        fcm = FCMSettings(
            serviceAccountKeyPath: read.optional("HERALD_SERVICE_ACCOUNT_KEY") ?? read.optional("GOOGLE_APPLICATION_CREDENTIALS"),
            baseURL: read.string("HERALD_FCM_BASE_URL", Self.googleFCMURL),
            oauthTokenURL: read.optional("HERALD_OAUTH_TOKEN_URL"),
            caFile: read.optional("HERALD_FCM_CA_FILE"))
        // The emulator serves the Data API beside the v1 API: a base URL of its own goes for both.
        fcm.dataURL = read.optional("HERALD_FCM_DATA_URL") ?? (fcm.baseURL == Self.googleFCMURL ? fcm.dataURL : fcm.baseURL)
        fcm.androidApps = read.string("HERALD_FCM_ANDROID_APPS", "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        fcm.deliveryDataHours = try read.integer("HERALD_DELIVERY_DATA_HOURS", fcm.deliveryDataHours, 0...168)
        fcm.topicAPI = try read.choice("HERALD_FCM_TOPIC_API", fcm.topicAPI)
        delivery = DeliverySettings()
        delivery.schedulerEnabled = try read.boolean("HERALD_SCHEDULER", delivery.schedulerEnabled)
        delivery.workers = try read.integer("HERALD_DELIVERY_WORKERS", delivery.workers, 1...64)
        delivery.leaseSeconds = try read.integer("HERALD_DELIVERY_LEASE_SECONDS", delivery.leaseSeconds, 1...3600)
        delivery.batchSize = try read.integer("HERALD_DELIVERY_BATCH_SIZE", delivery.batchSize, 1...1000)
        delivery.pollSeconds = try read.integer("HERALD_SCHEDULER_POLL_SECONDS", delivery.pollSeconds, 1...3600)
        delivery.audienceBuckets = try read.integer("HERALD_AUDIENCE_BUCKETS", delivery.audienceBuckets, 2...100)
        delivery.deviceBatchSize = try read.integer("HERALD_DELIVERY_DEVICE_BATCH_SIZE", delivery.deviceBatchSize, 1...5000)
        delivery.staleDeviceDays = try read.integer("HERALD_DEVICE_STALE_DAYS", delivery.staleDeviceDays, 1...3650)
        delivery.deliveryRetentionDays = try read.integer("HERALD_DELIVERY_RETENTION_DAYS", delivery.deliveryRetentionDays, 1...3650)
        delivery.approvalsRequired = try read.boolean("HERALD_APPROVALS", delivery.approvalsRequired)
        delivery.ratePerMinute = try read.integer("HERALD_FCM_RATE_PER_MINUTE", delivery.ratePerMinute, 0...100_000_000)
        delivery.fanOutsAtOnce = try read.integer("HERALD_TOPIC_FANOUTS_AT_ONCE", delivery.fanOutsAtOnce, 0...1000)
        delivery.leaderLeaseSeconds = try read.integer("HERALD_LEADER_LEASE_SECONDS", delivery.leaderLeaseSeconds, 2...3600)
        delivery.idempotencyKeyHours = try read.integer("HERALD_IDEMPOTENCY_KEY_HOURS", delivery.idempotencyKeyHours, 1...87_600)
        accounts = AccountSettings(
            sessionIdleSeconds: try read.integer("HERALD_SESSION_IDLE_SECONDS", 8 * 3600, 60...(30 * 86400)),
            sessionLifetimeSeconds: try read.integer("HERALD_SESSION_LIFETIME_SECONDS", 7 * 86400, 60...(365 * 86400)),
            signInMaxFailures: try read.integer("HERALD_SIGNIN_MAX_FAILURES", 10, 1...1000),
            signInWindowSeconds: try read.integer("HERALD_SIGNIN_WINDOW_SECONDS", 15 * 60, 1...86400),
            credentialCacheSeconds: try read.integer("HERALD_CREDENTIAL_CACHE_SECONDS", 30, 0...3600))
        webhooks = WebhookSettings()
        webhooks.threads = try read.integer("HERALD_WEBHOOK_THREADS", webhooks.threads, 0...64)
        webhooks.timeoutSeconds = try read.integer("HERALD_WEBHOOK_TIMEOUT_SECONDS", webhooks.timeoutSeconds, 1...120)
        webhooks.firstRetryMilliseconds = try read.integer("HERALD_WEBHOOK_FIRST_RETRY_MS", webhooks.firstRetryMilliseconds, 1...3_600_000)
        webhooks.maxRetryMilliseconds = try read.integer("HERALD_WEBHOOK_MAX_RETRY_MS", webhooks.maxRetryMilliseconds, 1...86_400_000)
        webhooks.maxAttempts = try read.integer("HERALD_WEBHOOK_MAX_ATTEMPTS", webhooks.maxAttempts, 1...1000)
        webhooks.privateAddresses = try read.boolean("HERALD_WEBHOOK_PRIVATE_ADDRESSES", webhooks.privateAddresses)
        webhooks.retentionDays = try read.integer("HERALD_WEBHOOK_RETENTION_DAYS", webhooks.retentionDays, 1...3650)
    }
}

/// A configuration value Herald cannot use, said so that the operator can fix it.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    public let variable: String
    public let value: String
    public let expected: String

    public init(variable: String, value: String, expected: String) {
        self.variable = variable
        self.value = value
        self.expected = expected
    }

    public var description: String { "\(variable)=\"\(value)\" is not valid: expected \(expected)" }
}
