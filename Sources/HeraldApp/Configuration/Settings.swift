import HeraldCore
import HeraldFCM
import HeraldPostgres
import HeraldSync

/// PostgreSQL: where it is, how many connections this process keeps, and the migrations.
public struct DatabaseSettings: Sendable, Equatable {
    /// libpq connection URL or conninfo string.
    public var url: String
    var poolSize: Int
    /// Folder of numbered SQL migrations.
    public var migrationsDirectory: String
    /// Whether `herald serve` applies missing migrations before it listens.
    public var migrateOnStart: Bool
    /// Whether each pooled connection prepares the statements it runs; off behind a pooler in
    /// transaction mode (pgbouncer), where the next transaction may run on another server session.
    public var preparedStatements: Bool
    /// Where LISTEN connects: a session of its own, which a pooler in transaction mode cannot
    /// give (notifications sent meanwhile would go to another client's server session). `url`
    /// unless the operator names a direct one.
    public var listenURL: String

    /// The statements each connection keeps prepared (none behind a transaction pooler).
    public var statementsKept: Int { preparedStatements ? PostgresConnection.defaultPreparedStatements : 0 }

    /// A connection of its own (the commands', the doctor's), as the setting asks.
    public func connect() throws -> PostgresConnection {
        try PostgresConnection(url: url, preparedStatements: statementsKept)
    }

    /// A pool of `maxConnections`, as the setting asks.
    public func pool(maxConnections: Int, acquireTimeout: Duration) -> PostgresPool {
        PostgresPool(url: url, maxConnections: maxConnections, acquireTimeout: acquireTimeout, preparedStatements: statementsKept)
    }
}

/// The FCM v1 API: the service-account key that makes sending possible, and where to send.
public struct FCMSettings: Sendable, Equatable {
    /// Path of a Google service-account JSON key; without one, sending is not configured.
    var serviceAccountKeyPath: String?
    /// Base URL of the FCM v1 API (the emulator's in development).
    public var baseURL: String
    /// Overrides the key's token_uri (the emulator's in development).
    var oauthTokenURL: String?
    /// A PEM file of the CA certificates trusted for the FCM and token endpoints instead of the
    /// system's (a corporate proxy's CA, a private test endpoint's certificate).
    public var caFile: String?
    /// Base URL of the FCM Data API (delivery figures): Google's, or the emulator's with it.
    var dataURL = "https://fcmdata.googleapis.com"
    /// The Firebase Android app ids whose delivery figures are read; empty: the ones devices registered with.
    public var androidApps: [String] = []
    /// Hours between two reads of the Data API (0: only on demand).
    var deliveryDataHours = 6
    /// Which API subscribes devices to topics: FCM v1's `topicSubscriptions` (tokens and FIDs), or
    /// the Instance ID API for an old project until its turndown (29 September 2027).
    public var topicAPI: TopicAPI = .v1
}

/// The scheduler and the delivery workers of this process. The defaults are written here once:
/// the environment's reader (`HeraldConfiguration`) and the engine's configuration
/// (`DeliveryEngine.Configuration`) start from them, so tests run with production's unless
/// they say otherwise.
public struct DeliverySettings: Sendable, Equatable {
    /// Whether this process runs the scheduler and delivery workers (they also need a sender).
    var schedulerEnabled = true
    /// Delivery worker threads in this process.
    public var workers = 2
    /// Seconds a worker's claim on deliveries lasts; a crashed worker's deliveries are taken over after it.
    var leaseSeconds = 60
    /// Deliveries a worker claims and sends per round.
    public var batchSize = 32
    /// Seconds between the scheduler's fallback polls (LISTEN/NOTIFY wakes it at once otherwise).
    var pollSeconds = 10
    /// How many audience-bucket topics apps subscribe to (one each) for A/B tests; see the README.
    var audienceBuckets = 20
    /// Requests to single devices a worker claims and sends per round (each reaches one device).
    var deviceBatchSize = 256
    /// Devices unseen for this many days are marked stale and sent nothing (FCM drops tokens
    /// unused for 270 days).
    var staleDeviceDays = 270
    /// Days a finished run's requests and failed devices are kept, one by one, after its counts
    /// are folded (the counts stay); dropped a partition at a time.
    var deliveryRetentionDays = 30
    /// Whether a campaign needs a publisher's approval (not its last editor's) before it is
    /// scheduled or sent.
    var approvalsRequired = false
    /// Messages a minute the FCM project may be sent, shared by every instance (FCM's quota is
    /// 600,000); 0: no limit of Herald's own.
    var ratePerMinute = 600_000
    /// Topic fan-outs in flight at once across every instance (FCM recommends one); 0: no limit.
    var fanOutsAtOnce = 1
    /// Seconds the leader lease lasts: another instance takes the once-per-deployment chores
    /// over within this long after the leader dies.
    var leaderLeaseSeconds = 30
    /// Hours an `Idempotency-Key`'s first answer is kept (a retry later than that is a new request).
    var idempotencyKeyHours = 24

    public init() {}
}

/// Browser sessions and the sign-in rate limit.
public struct AccountSettings: Sendable, Equatable {
    /// A browser session ends after this many seconds without a request (sliding).
    var sessionIdleSeconds: Int
    /// A browser session ends this many seconds after sign-in, however active.
    public var sessionLifetimeSeconds: Int
    /// Failed sign-ins for one account within the window that lock it until the window passes
    /// (one address gets five times as many, across accounts).
    var signInMaxFailures: Int
    /// The sign-in rate-limit window, in seconds.
    var signInWindowSeconds: Int
    /// How long a checked session or API key is trusted without asking the database again
    /// (0: ask every time). Revocations reach every instance at once regardless.
    var credentialCacheSeconds: Int
}

/// How webhooks are posted: by their own threads, never a request's or a send worker's.
public struct WebhookSettings: Sendable, Equatable {
    /// Threads posting to receivers; each serves one endpoint at a time.
    public var threads = 2
    /// A receiver must answer within this many seconds, or the attempt failed.
    var timeoutSeconds = 10
    /// The first retry waits this long, each next one twice as long, up to the maximum.
    var firstRetryMilliseconds = 10_000
    var maxRetryMilliseconds = 3_600_000
    /// Attempts before a delivery is given up (dead, until redelivered): about three days.
    public var maxAttempts = 80
    /// Whether receivers may be on loopback or private networks (off: such an address is refused
    /// after DNS, so a webhook cannot reach the database or a cloud metadata service).
    var privateAddresses = false
    /// Delivered deliveries are kept this many days in the log.
    var retentionDays = 30

    public init() {}

    /// How long a dispatcher holds an endpoint, renewed after each post: longer than a post may
    /// take (the timeout) and the recording after it, whatever the timeout, so that no other
    /// dispatcher takes the endpoint over while a post is still in flight and posts it again.
    var endpointLease: Duration { .seconds(timeoutSeconds + 60) }

    /// The same schedule type as FCM's retries; a tenth of jitter on top, not full jitter: a
    /// receiver that is down for days is tried at the pace the settings say.
    var retrySchedule: Backoff {
        Backoff(base: .milliseconds(firstRetryMilliseconds), maximum: .milliseconds(maxRetryMilliseconds), attempts: maxAttempts,
                jitter: .upToATenthMore)
    }
}
