import HeraldSync
import HeraldCrypto
import HeraldFCM

/// What the emulator trusts and how it misbehaves on purpose.
public struct FCMEmulatorConfiguration: Sendable {
    /// The only project it sends for; other projects get 403 PERMISSION_DENIED.
    public var projectID: String
    /// The service account's public key (PEM) that JWT assertions must be signed with.
    public var trustedPublicKeyPEM: String
    /// The assertion's `iss` must be this e-mail; nil accepts any issuer.
    public var trustedClientEmail: String?
    /// Audiences accepted besides the emulator's own `http://{Host}/token`.
    public var extraAudiences: [String]
    /// The `expires_in` of issued access tokens, in seconds.
    public var accessTokenLifetime: Int
    /// Accepted messages kept for `GET /emulator/messages`; the oldest go first.
    public var messageCapacity: Int
    /// Registration tokens answered with 404 UNREGISTERED, as for an uninstalled app.
    public var unregisteredTokens: Set<String>
    /// Tokens of another sender (another Firebase project): 403 SENDER_ID_MISMATCH.
    public var otherSendersTokens: Set<String> = []
    /// Devices over their own rate (240 a minute): 429 QUOTA_EXCEEDED with `Retry-After`, about them alone.
    public var throttledTokens: Set<String> = []
    /// Topics over their own rate: a request to one (by `topic`, or a `condition` naming it) is
    /// answered 429 QUOTA_EXCEEDED with `Retry-After`, about that topic alone.
    public var throttledTopics: Set<String> = []
    /// The first this many Instance ID calls are answered 503 with `Retry-After: 1`.
    public var instanceIDUnavailableCalls = 0
    /// The first this many Data API calls are answered, in turn, 503 UNAVAILABLE and 429
    /// RESOURCE_EXHAUSTED, each with `Retry-After: 1`: the passing trouble a reader retries.
    public var dataAPIFailingCalls = 0
    /// Tokens the Instance ID API answers INTERNAL for the first time it sees them.
    public var instanceIDFlakyTokens: Set<String> = []
    /// Topic subscription adds and removes (v1 `topicSubscriptions` create, patch, delete) a second
    /// for the project; beyond, 429 RESOURCE_EXHAUSTED (FCM's limit: 3,000).
    public var subscriptionsPerSecond = 3000
    /// Registrations whose subscription adds and removes are always answered 503 UNAVAILABLE
    /// with `Retry-After: 1`, as a server in trouble would.
    public var subscriptionUnavailableRegistrations: Set<String> = []
    /// The most subscriptions one page of `list` holds (FCM: "the service may return fewer" than
    /// the 2,000 asked; tests lower it to see clients follow `nextPageToken`).
    public var subscriptionPageLimit = 2000
    /// Topics one registration may be subscribed to (FCM's limit: 2,000).
    public var maximumTopicsPerRegistration = 2000
    /// Shares of send requests answered with faults.
    public var faults: FaultInjection
    /// The Android app the Data API reports a message under, unless `androidAppsByToken` names its token's.
    public var androidAppID = "1:000000000000:android:0000000000000000"
    public var androidAppsByToken: [String: String] = [:]
    /// How accepted messages fare on devices, as the Data API reports it.
    public var deliveryShares = DeliveryShares()

    public init(
        projectID: String,
        trustedPublicKeyPEM: String,
        trustedClientEmail: String? = nil,
        extraAudiences: [String] = [],
        accessTokenLifetime: Int = 3600,
        messageCapacity: Int = 10_000,
        unregisteredTokens: Set<String> = [],
        faults: FaultInjection = FaultInjection()
    ) {
        self.projectID = projectID
        self.trustedPublicKeyPEM = trustedPublicKeyPEM
        self.trustedClientEmail = trustedClientEmail
        self.extraAudiences = extraAudiences
        self.accessTokenLifetime = accessTokenLifetime
        self.messageCapacity = messageCapacity
        self.unregisteredTokens = unregisteredTokens
        self.faults = faults
    }

    /// Trusts the key of a service-account key file (its project, issuer and public key), as
    /// `herald fcm-emulator --service-account <file>` does.
    public init(trusting account: ServiceAccount) throws(OpenSSLError) {
        self.init(projectID: account.projectID,
                  trustedPublicKeyPEM: try account.privateKey.publicKeyPEM(),
                  trustedClientEmail: account.clientEmail)
    }
}

/// Faults injected into `messages:send` after the bearer token is checked; each request draws
/// once, from a seeded generator when `seed` is set, so a test run repeats exactly.
public struct FaultInjection: Sendable {
    /// Share answered 429 QUOTA_EXCEEDED with `Retry-After: retryAfterSeconds`.
    public var quotaExceeded: Double
    /// Share answered 503 UNAVAILABLE (with `Retry-After` when `unavailableRetryAfter` is set).
    public var unavailable: Double
    /// Share answered 500 INTERNAL.
    public var internalError: Double
    /// Share whose connection is closed without an answer.
    public var dropConnection: Double
    /// Share answered only after `slowDelay`.
    public var slow: Double
    public var retryAfterSeconds: Int
    public var unavailableRetryAfter: Int?
    public var slowDelay: Duration
    public var seed: UInt64?

    public init(
        quotaExceeded: Double = 0, unavailable: Double = 0, internalError: Double = 0,
        dropConnection: Double = 0, slow: Double = 0,
        retryAfterSeconds: Int = 1, unavailableRetryAfter: Int? = nil,
        slowDelay: Duration = .seconds(2), seed: UInt64? = nil
    ) {
        self.quotaExceeded = quotaExceeded
        self.unavailable = unavailable
        self.internalError = internalError
        self.dropConnection = dropConnection
        self.slow = slow
        self.retryAfterSeconds = retryAfterSeconds
        self.unavailableRetryAfter = unavailableRetryAfter
        self.slowDelay = slowDelay
        self.seed = seed
    }

    /// Whether any fault is configured.
    public var isActive: Bool { quotaExceeded + unavailable + internalError + dropConnection + slow > 0 }
}
