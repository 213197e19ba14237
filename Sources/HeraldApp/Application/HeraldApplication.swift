import HeraldSync
import HeraldCore
import HeraldFCM
import HeraldPostgres

/// Herald without its faces: the database, one service per aggregate, and the scheduler with its
/// delivery workers. The web module (and the command line) call these services; nothing here
/// speaks HTTP.
public final class HeraldApplication: Sendable {
    public let configuration: HeraldConfiguration
    let database: Database
    public let log: Log
    public let metrics = Metrics()
    public let campaigns: CampaignService
    public let accounts: AccountService
    public let signIn: SignInService
    public let authenticator: Authenticator
    public let events: EventService
    public let journeys: JourneyService
    public let images: ImageService
    public let devices: DeviceService
    public let segments: SegmentService
    public let webhooks: WebhookService
    public let deliveryData: DeliveryDataService
    public let sends: SendService
    public let contactPolicy: ContactPolicyService
    public let testDevices: TestDeviceService
    /// Whether a sender is configured (test sends and dry runs need one).
    public let sendingConfigured: Bool
    public let engine: DeliveryEngine?
    /// Everything this instance runs in the background besides the delivery workers (the
    /// scheduler, the chores, webhook dispatch, the Data API poll…), with the leader lease;
    /// nil when the scheduler is off (`HERALD_SCHEDULER=false`).
    let background: BackgroundRuntime?
    /// Sessions and keys checked lately; nil when `HERALD_CREDENTIAL_CACHE_SECONDS` is 0.
    let credentials: CredentialCache?

    /// Builds the services; nothing runs until `start()`. Fails on an unreadable service-account key.
    public init(configuration: HeraldConfiguration, log: Log) throws {
        self.configuration = configuration
        self.log = log
        let pool = configuration.database.pool(maxConnections: configuration.database.poolSize, acquireTimeout: .seconds(5))
        database = Database(pool: pool)
        let sender = try SenderSetup.make(configuration, log: log)
        sendingConfigured = sender != nil
        let buckets = AudienceBuckets(count: configuration.delivery.audienceBuckets)
        let sessions = SessionStore(idleSeconds: configuration.accounts.sessionIdleSeconds, lifetimeSeconds: configuration.accounts.sessionLifetimeSeconds)
        let cacheSeconds = configuration.accounts.credentialCacheSeconds
        credentials = cacheSeconds > 0 ? CredentialCache(lifetime: .seconds(cacheSeconds)) : nil
        campaigns = CampaignService(database: database, sender: sender, buckets: buckets,
                                    approvalsRequired: configuration.delivery.approvalsRequired)
        accounts = AccountService(database: database, credentials: credentials)
        signIn = SignInService(database: database, log: log,
                               throttle: SignInThrottle(maxFailures: configuration.accounts.signInMaxFailures, windowSeconds: configuration.accounts.signInWindowSeconds),
                               sessions: sessions, credentials: credentials)
        authenticator = Authenticator(database: database, sessions: sessions, cache: credentials)
        events = EventService(database: database, journeys: JourneyEvents())
        journeys = JourneyService(database: database, approvalsRequired: configuration.delivery.approvalsRequired)
        images = ImageService(database: database)
        devices = DeviceService(database: database, sender: sender)
        segments = SegmentService(database: database)
        webhooks = WebhookService(database: database)
        contactPolicy = ContactPolicyService(database: database)
        testDevices = TestDeviceService(database: database)
        sends = SendService(database: database, buckets: buckets, approvalsRequired: configuration.delivery.approvalsRequired)
        deliveryData = DeliveryDataService(database: database, client: try SenderSetup.makeDataClient(configuration),
                                           apps: configuration.fcm.androidApps)
        let owner = DeliveryEngine.newOwner()
        if let sender, configuration.delivery.schedulerEnabled {
            let settings = DeliveryEngine.Configuration(configuration.delivery, projectID: sender.configuration.projectID)
            engine = DeliveryEngine(configuration: settings, pool: pool, databaseURL: configuration.database.listenURL,
                                    sender: sender, log: log, metrics: metrics, owner: owner)
        } else {
            engine = nil
        }
        if configuration.delivery.schedulerEnabled {
            let dispatcher = WebhookDispatcher(settings: configuration.webhooks, pool: pool, caFile: configuration.fcm.caFile, owner: owner,
                                               log: log, metrics: metrics)
            // A segment's topic subscription job, worked through by whichever instance claims it first.
            let topicJobs = sender == nil ? nil : devices.topicJobsService(owner: owner, every: .seconds(configuration.delivery.pollSeconds), log: log)
            let routes = (engine?.notificationRoutes ?? [:]).merging(dispatcher.notificationRoutes) { $0 + $1 }
                .merging(topicJobs.map { [TopicJobStore.channel: [$0.bell!]] } ?? [:]) { $0 + $1 }
            var services = Self.listening(for: routes, databaseURL: configuration.database.listenURL, log: log)
            if let topicJobs { services.append(topicJobs) }
            services += engine?.backgroundServices ?? []
            services += dispatcher.backgroundServices
            services.append(Self.idempotencyExpiry(pool: pool, hours: configuration.delivery.idempotencyKeyHours, log: log))
            if sender != nil && configuration.fcm.deliveryDataHours > 0 {
                services.append(deliveryData.pollingService(hours: configuration.fcm.deliveryDataHours, log: log))
            }
            let leadership = Leadership(.elected(pool: pool, lease: .seconds(configuration.delivery.leaderLeaseSeconds)), owner: owner, log: log)
            background = BackgroundRuntime(services: services, leadership: leadership, reportingTo: pool, log: log, metrics: metrics)
        } else {
            background = nil
        }
    }

    /// One LISTEN connection for the scheduler, the workers and webhook dispatch: a step that
    /// runs until the runtime stops.
    static func listening(for routes: [String: [Wakeup]], databaseURL: String, log: Log) -> [BackgroundService] {
        guard !routes.isEmpty else { return [] }
        let listener = NotificationListener(databaseURL: databaseURL, routes: routes, log: log)
        return [BackgroundService("notifications", .everyInstance, every: .seconds(1), step: { pass in
            listener.run(until: pass.isStopping)
            return nil
        })]
    }

    /// Forgets `Idempotency-Key` answers older than `hours`, once per deployment, hourly.
    static func idempotencyExpiry(pool: PostgresPool, hours: Int, log: Log) -> BackgroundService {
        BackgroundService("idempotency-expiry", .leader, every: .seconds(3600), step: { _ in
            let expired = try pool.withConnection { try IdempotencyStore().expire(olderThanHours: hours, on: $0) }
            if expired > 0 { log.info("idempotency keys expired", ["keys": .number(Double(expired)), "older_than_hours": .number(Double(hours))]) }
            return nil
        })
    }

    /// Applies missing migrations when configured to (before anything listens).
    public func migrate() throws {
        guard configuration.database.migrateOnStart else { return }
        let applied = try database.pool.withConnection { connection in
            try Migrator(directory: configuration.database.migrationsDirectory).migrate(connection) { [log] waited in
                log.info("waiting for another instance's migration", ["waited_seconds": .number(Double(waited))])
            }
        }
        log.info("migrations applied", ["directory": .string(configuration.database.migrationsDirectory), "applied": .number(Double(applied.count))])
    }

    /// Starts the delivery workers and the background services (when sending is configured and
    /// enabled), and the credential cache's listener.
    public func startWorkers() {
        credentials?.start(databaseURL: configuration.database.listenURL, log: log)
        engine?.startWorkers(listening: false)
        background?.start()
    }

    /// How long a stopping instance waits for its workers' rounds in flight: what FCM (or a
    /// webhook receiver) answers by then is recorded; a round still waiting is abandoned to its
    /// leases, and another instance sends it again once they run out (FCM may have had it: those
    /// requests, at most the rounds in flight, may repeat). The operator's guide says this bound.
    public static let drainDeadline: Duration = .seconds(10)

    /// Stops the workers and waits for their current rounds, up to `drainDeadline` for all of them
    /// together, so a restart repeats no request that was answered in time.
    public func stopWorkers(waiting: Bool) {
        credentials?.stop()
        engine?.stop()
        background?.stop()
        guard waiting else { return }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: Self.drainDeadline)
        let engineDone = engine?.waitUntilStopped(timeout: clock.now.duration(to: deadline)) ?? true
        let servicesDone = background?.waitUntilStopped(timeout: max(.zero, clock.now.duration(to: deadline))) ?? true
        if !engineDone || !servicesDone {
            log.warning("drain deadline passed: rounds still waiting for answers are left to their leases",
                        ["deadline_seconds": .number(Self.drainDeadline.seconds), "delivery_workers_done": .bool(engineDone),
                         "background_services_done": .bool(servicesDone)])
        }
    }

    /// Whether the database answers now (readiness).
    public func databaseAnswers() -> Bool {
        do {
            _ = try database.read { try $0.query("SELECT 1") }
            return true
        } catch {
            log.warning("not ready: \(error)")
            return false
        }
    }

    /// The id this instance's leases carry (deliveries, webhooks, the leader lease).
    public var instanceOwner: String { background?.leadership.owner ?? engine?.owner ?? "" }

    /// The background services' gauges (the leader lease, each service's last step), for /metrics.
    public var backgroundGauges: [Metrics.Gauge] { background?.gauges ?? [] }

    /// The pool's gauges, for /metrics.
    public var poolStatistics: (open: Int, inUse: Int, waiting: Int) {
        let statistics = database.pool.statistics
        return (statistics.open, statistics.inUse, statistics.waiting)
    }
}
