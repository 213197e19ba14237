#if canImport(Glibc)
import Glibc
#endif
import HeraldSync
import FCMMessage
import Foundation
import HeraldCore
import HeraldFCM
import HeraldPostgres
import Synchronization

/// The scheduler and the delivery workers of one process. Every process runs its own; they share
/// the work through the database alone (SKIP LOCKED claims, leases), so any number may run.
///
/// - A listener thread LISTENs for `herald_schedule` and `herald_deliveries` and rings the bell.
/// - The scheduler thread starts due runs, then sleeps until the next due time, the bell, or the
///   poll interval (the fallback when a notification is missed).
/// - Worker threads claim ready deliveries in batches, send them, and record each outcome.
public final class DeliveryEngine: Sendable {
    /// The engine's settings, made from `DeliverySettings` (where the defaults are written once:
    /// `Configuration()` is production's) and the sender's project.
    public struct Configuration: Sendable {
        /// Delivery worker threads.
        public var workers: Int
        /// Deliveries a worker claims, sends at once and records per round. Small rounds spread a
        /// run over every instance and bound what a crash can repeat (the requests in flight).
        public var batchSize: Int
        /// Requests to devices a worker claims per round: each reaches one device, so a round may
        /// be larger (a crash repeats at most these, each to its own device).
        var deviceBatchSize: Int
        /// Devices unseen this long are marked stale (once an hour).
        var staleDeviceDays: Int
        /// Days a finished run's detail is kept after it is folded into its counts (looked at once an hour).
        var deliveryRetentionDays: Int
        /// Requests of one round in flight at once: the whole round, as streams of one HTTP/2
        /// connection, up to the streams a connection carries (more would wait for a free one).
        public var sendConcurrency: Int { min(max(batchSize, deviceBatchSize), CurlHTTPClient.streamsPerConnection) }
        /// How long a claim holds its deliveries; must outlast one round (the sender's request
        /// timeout), since an expired lease lets another worker send the same request again.
        public var lease: Duration
        /// The fallback wake-up when no notification comes.
        var pollInterval: Duration
        public var buckets: AudienceBuckets
        public var retryPolicy = RetryPolicy()
        /// The FCM project's sending rate, shared by every instance (nil: unlimited).
        var sendRate: SendRate?
        /// Topic or condition requests in flight at once across every instance (FCM asks for
        /// one); nil: one per run, no limit across runs.
        var fanOutsAtOnce: Int?
        /// Whether a run starts only for the version a publisher approved (`HERALD_APPROVALS`).
        var approvalsRequired: Bool
        /// The time journeys move their devices by (tests run them on a clock they control).
        public var journeyClock: @Sendable () -> Date = { Date() }
        /// Journey devices moved per transaction.
        var journeyBatch = 1000

        /// The engine as `settings` say, sending for FCM project `projectID` (the shared quota's key).
        public init(_ settings: DeliverySettings, projectID: String) {
            workers = settings.workers
            batchSize = settings.batchSize
            deviceBatchSize = settings.deviceBatchSize
            staleDeviceDays = settings.staleDeviceDays
            deliveryRetentionDays = settings.deliveryRetentionDays
            lease = .seconds(settings.leaseSeconds)
            pollInterval = .seconds(settings.pollSeconds)
            buckets = AudienceBuckets(count: settings.audienceBuckets)
            sendRate = settings.ratePerMinute > 0 ? SendRate(project: projectID, messages: settings.ratePerMinute) : nil
            fanOutsAtOnce = settings.fanOutsAtOnce > 0 ? settings.fanOutsAtOnce : nil
            approvalsRequired = settings.approvalsRequired
        }

        /// Production's defaults (`DeliverySettings()`), for a project of no name of its own.
        public init() { self.init(DeliverySettings(), projectID: "herald") }
    }

    /// How fast one FCM project may be sent to, across every instance: `messages` per `period`
    /// (600,000 a minute is FCM's quota). Tests scale the period down.
    struct SendRate: Sendable, Equatable {
        var project: String
        var messages: Int
        var period: Duration

        init(project: String, messages: Int, per period: Duration = .seconds(60)) {
            self.project = project
            self.messages = messages
            self.period = period
        }

        var perSecond: Double { Double(messages) / period.seconds }
    }

    /// How often the scheduler (index 0) and each worker (1…) began looking for work, and which of
    /// those looks last finished: a test that did something the engine must not act on waits until
    /// every loop has looked since, then checks that nothing came of it (a sleep would also pass
    /// had the engine never looked).
    public struct Looks: Sendable {
        var begun: [Int]
        var finished: [Int]

        init(loops: Int) {
            begun = Array(repeating: 0, count: loops)
            finished = begun
        }

        /// Whether the scheduler and every worker have finished a look that began after `earlier`.
        public func haveLookedAgain(since earlier: Looks) -> Bool {
            zip(finished, earlier.begun).allSatisfy { $0 > $1 }
        }
    }

    public var progress: Looks { looks.withLock { $0 } }

    /// Counts a look of loop `loop` begun; returns its number, for `finishedLook`.
    func beganLook(_ loop: Int) -> Int {
        looks.withLock { $0.begun[loop] += 1; return $0.begun[loop] }
    }

    func finishedLook(_ loop: Int, _ look: Int) {
        looks.withLock { $0.finished[loop] = look }
    }

    let configuration: Configuration
    let outbox: any DeliveryOutbox
    /// Where LISTEN connects: notifications wake the scheduler and the workers at once.
    let databaseURL: String
    let sender: any MessageSending
    let log: Log
    let metrics: Metrics
    let owner: String
    let scheduleBell = Wakeup()
    let deliveryBell = Wakeup()
    let journeyBell = Wakeup()
    /// The listener and the workers; `waitUntilStopped` waits for them.
    let threads = RunningThreads()
    /// The background services when the engine runs them itself (`start`).
    let ownServices = Mutex<BackgroundRuntime?>(nil)

    /// How many steps this engine's own background service `name` has made (`start()` runs them).
    func backgroundSteps(of name: String) -> Int { ownServices.withLock { $0 }?.steps(of: name) ?? 0 }
    /// The shared bucket as this process saw it last, for the metrics.
    let lastBucket = Mutex<SendQuotaStore.Snapshot?>(nil)
    /// The day's analytics labels (every instance's) as the scheduler last counted them.
    let labelsToday = Mutex<Int?>(nil)
    /// Which worker of this process asks the shared bucket next (`QuotaTurn`).
    let quotaTurn = Mutex(QuotaTurn())
    let looks: Mutex<Looks>

    public convenience init(configuration: Configuration, pool: PostgresPool, databaseURL: String, sender: any MessageSending,
                            log: Log, metrics: Metrics, owner: String? = nil) {
        self.init(configuration: configuration, outbox: PostgresOutbox(pool: pool, starter: RunStarter(buckets: configuration.buckets, approvalsRequired: configuration.approvalsRequired)),
                  databaseURL: databaseURL, sender: sender, log: log, metrics: metrics, owner: owner)
    }

    init(configuration: Configuration, outbox: any DeliveryOutbox, databaseURL: String, sender: any MessageSending, log: Log, metrics: Metrics,
         owner: String? = nil) {
        self.configuration = configuration
        self.outbox = outbox
        self.databaseURL = databaseURL
        self.sender = sender
        self.log = log
        self.metrics = metrics
        looks = Mutex(Looks(loops: 1 + configuration.workers))
        self.owner = owner ?? Self.newOwner()
    }

    /// Starts the workers and the engine's background services, these as the only instance
    /// (leading its own chores); they run until `stop()`. Without `listening`, another thread of
    /// the process listens for them (`notificationRoutes`).
    public func start(listening: Bool = true) {
        let runtime = BackgroundRuntime(services: backgroundServices, leadership: Leadership(.alone, owner: owner, log: log), log: log, metrics: metrics)
        ownServices.withLock { $0 = runtime }
        startWorkers(listening: listening)
        runtime.start()
    }

    /// Starts the listener (with `listening`) and the delivery workers; the background services
    /// are the caller's to run (`backgroundServices`, in the application's runtime).
    func startWorkers(listening: Bool) {
        var bodies: [(name: String, body: @Sendable () -> Void)] = []
        if listening { bodies.append(("herald-listener", { [self] in listen() })) }
        for index in 0..<configuration.workers {
            bodies.append(("herald-worker-\(index)", { [self] in work(index) }))
        }
        for name in threads.start(bodies) { log.error("\(name) could not be started: the system has no thread to spare") }
        log.info("delivery engine started", ["owner": .string(owner), "workers": .number(Double(configuration.workers))])
    }

    /// Asks the threads to stop after their current step; sends in flight complete and are recorded.
    public func stop() {
        scheduleBell.stop()
        deliveryBell.stop()
        journeyBell.stop()
        ownServices.withLock { $0 }?.stop()
    }

    /// Waits (up to `timeout`) until every thread has finished its last step, so that a process
    /// that stops leaves no delivery leased: what it sent is recorded, what it claimed is released.
    /// Returns whether they all finished.
    @discardableResult
    public func waitUntilStopped(timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        let workers = threads.waitUntilStopped(timeout: timeout)
        let services = ownServices.withLock { $0 }?.waitUntilStopped(timeout: max(.zero, ContinuousClock.now.duration(to: deadline))) ?? true
        return workers && services
    }

    var stopped: Bool { scheduleBell.isStopped }

    // MARK: - Threads

    /// The bells a notification listener rings for this engine.
    var notificationRoutes: [String: [Wakeup]] {
        [DeliveryStore.scheduleChannel: [scheduleBell], DeliveryStore.deliveryChannel: [deliveryBell], JourneyEvents.channel: [journeyBell]]
    }

    func listen() {
        NotificationListener(databaseURL: databaseURL, routes: notificationRoutes, log: log).run { [self] in stopped }
    }

    func work(_ index: Int) {
        // Runs this worker sent a full round of and has not looked at closing since: a full round
        // leaves more behind as a rule, and the look (a probe of the run's waiting requests) is
        // left for a round that comes back short or empty.
        var unclosed: Set<RunID> = []
        // Whether the last round sent something: an empty claim right after one is a run's tail
        // (the rest in flight at other workers), waited out briefly instead of asking the outbox
        // when the next request falls due, which reads every waiting request.
        var justSent = false
        while !stopped {
            let seen = deliveryBell.generation
            let look = beganLook(1 + index)
            var wait = configuration.pollInterval
            do {
                // The OAuth token first: nothing is claimed (and so held) while it is fetched.
                try sender.prepare()
                // Then the project's tokens: as many deliveries are claimed as may be sent now (a
                // round to devices may be larger than one of topic fan-outs).
                var allowed = max(configuration.batchSize, configuration.deviceBatchSize)
                if let limit = quotaLimit {
                    // Another worker of this process asks, or the bucket cannot hold a round yet.
                    if let wait = quotaTurn.withLock({ $0.mayAsk(at: monotonicSeconds()) }) {
                        finishedLook(1 + index, look)
                        deliveryBell.wait(after: seen, timeout: .milliseconds(max(1, Int((wait * 1000).rounded(.up)))))
                        continue
                    }
                    // A round of at least 25 ms of the quota (a whole round at FCM's 600,000 a minute):
                    // workers taking turns at a full round, not each the trickle since the last take.
                    let least = Int(limit.ratePerSecond * 0.025)
                    let taken = Result { try outbox.takeTokens(allowed, atLeast: least, limit: limit) }
                    let wait = switch taken {
                    case .success(let (grant, snapshot)) where grant.granted > 0:
                        TokenBucket.refillWait(tokensLeft: snapshot.tokens, least: min(least, allowed, limit.capacity), ratePerSecond: limit.ratePerSecond)
                    case .success(let (grant, _)): grant.wait
                    case .failure: 0.0
                    }
                    quotaTurn.withLock { $0.answered(at: monotonicSeconds(), wait: wait) }
                    let (grant, snapshot) = try taken.get()
                    lastBucket.withLock { $0 = snapshot }
                    guard grant.granted > 0 else {
                        finishedLook(1 + index, look)  // nothing may be sent now: looking is done
                        deliveryBell.wait(after: seen, timeout: .milliseconds(max(1, Int((grant.wait * 1000).rounded(.up)))))
                        continue
                    }
                    allowed = grant.granted
                }
                let claimed = try outbox.claim(owner: owner, limit: min(allowed, configuration.batchSize), deviceLimit: allowed,
                                               lease: configuration.lease, fanOutsAtOnce: configuration.fanOutsAtOnce,
                                               fanOutHold: quotaLimit?.fanOuts.project)
                // A request a cap stopped is not sent: its token goes back to the bucket.
                let sending = claimed.count { !$0.capped }
                if let limit = quotaLimit, sending < allowed {
                    try outbox.giveBackTokens(allowed - sending, limit: limit)
                }
                if !claimed.isEmpty {
                    metrics.increment("herald_fcm_tokens_taken_total", by: Double(sending),
                                      help: "Tokens of the project's shared sending quota this process used.")
                    let runs = Set(claimed.map(\.runID))
                    if claimed.count < allowed {
                        try send(claimed, closing: runs.union(unclosed))
                        unclosed = []
                    } else {
                        try send(claimed, closing: [])
                        unclosed.formUnion(runs)
                    }
                    justSent = true
                    finishedLook(1 + index, look)
                    continue
                }
                if !unclosed.isEmpty {
                    try outbox.closeRuns(unclosed)
                    unclosed = []
                }
                finishedLook(1 + index, look)
                if justSent {
                    justSent = false
                    wait = .milliseconds(50)
                } else if let seconds = try outbox.secondsUntilNextDelivery() {
                    wait = min(wait, .milliseconds(max(20, Int(seconds * 1000))))
                }
            } catch {
                log.warning("delivery worker \(index): \(error)")
                wait = .seconds(1)
            }
            deliveryBell.wait(after: seen, timeout: wait)
        }
        // A process that stops leaves no run open that its last full round finished.
        if !unclosed.isEmpty {
            do { try outbox.closeRuns(unclosed) } catch { log.warning("delivery worker \(index): closing runs: \(error)") }
        }
    }

    /// Runs `body` while a helper thread extends the leases of `ids` every third of a lease, so a
    /// slow round never lets another worker take (and send again) what this one is sending.
    func whileRenewingLeases<R>(of ids: [Int64], _ body: () -> R) -> R {
        let done = ConditionLock(false)
        let stopped = ConditionLock(false)
        do {
            try startThread(name: "herald-lease") { [self] in
                while done.wait(until: monotonicDeadline(after: configuration.lease / 3), { $0 ? true : nil }) == nil {
                    do {
                        try outbox.renew(ids, owner: owner, lease: configuration.lease)
                    } catch {
                        log.warning("renewing \(ids.count) delivery leases failed: \(error)")
                    }
                }
                stopped.withLock { $0 = true }
                stopped.broadcast()
            }
        } catch {
            log.warning("no lease renewal for this round: \(error)")
            return body()
        }
        let result = body()
        done.withLock { $0 = true }
        done.broadcast()
        _ = stopped.wait { $0 ? true : nil }
        return result
    }

    /// Sends one claimed batch, records each answer, and closes those of `closing` that are finished.
    func send(_ claimed: [DeliveryStore.Claimed], closing: Set<RunID>) throws {
        for delivery in claimed where delivery.attempts == 1 {
            metrics.observe("herald_scheduler_lateness_seconds", max(0, delivery.lateness), bounds: Metrics.latenessBounds,
                            help: "Seconds from a run's due time to each delivery's first attempt.")
        }
        let clock = ContinuousClock()
        // A message over FCM's limit (a streamed run's, rendered now) is never sent: it fails as it
        // is; one a frequency cap stopped is recorded as capped.
        let sendable = claimed.filter { $0.failure == nil && !$0.capped }
        let answers = whileRenewingLeases(of: Array(Set(claimed.map(\.id)))) {
            sender.send(batch: sendable.map(\.body), concurrency: configuration.sendConcurrency)
        }
        let answeredAt = clock.now
        holdWhatFCMAskedTo(answers, of: sendable)
        var outcomes: [DeliveryStore.Outcome] = []
        for (delivery, answer) in zip(sendable, answers) {
            var outcome: DeliveryStore.Outcome
            switch answer {
            case .sent(let name):
                outcome = .init(id: delivery.id, status: .sent, messageName: name)
            case .failed(let error):
                let delay = configuration.retryPolicy.delay(forAttempt: delivery.attempts, outcome: answer)
                outcome = .init(id: delivery.id, status: delay == nil ? .failed : .retrying,
                                errorCode: error.code.rawValue, errorMessage: error.message, retryDelay: delay)
            }
            outcome.device = delivery.device
            outcomes.append(outcome)
            metrics.increment("herald_deliveries_total", [("outcome", outcome.status.rawValue)], help: "Delivery attempts by outcome.")
        }
        for delivery in claimed where delivery.failure != nil {
            outcomes.append(.init(id: delivery.id, status: .failed, errorCode: "PAYLOAD_TOO_LARGE", errorMessage: delivery.failure,
                                  device: delivery.device))
        }
        for delivery in claimed where delivery.capped {
            outcomes.append(.init(id: delivery.id, status: .capped, device: delivery.device))
        }
        if claimed.contains(where: \.capped) {
            metrics.increment("herald_deliveries_total", [("outcome", DeliveryStatus.capped.rawValue)], by: Double(claimed.count { $0.capped }),
                              help: "Delivery attempts by outcome.")
        }
        // FCM has answered: losing that answer would send the requests again once the lease
        // expires, so a failing database is retried for as long as the lease holds.
        while true {
            do {
                try outbox.record(outcomes, owner: owner, closing: closing)
                return
            } catch {
                // The leases were renewed at most a third of a lease before the answers came.
                guard answeredAt.duration(to: clock.now) < configuration.lease * 2 / 3 - .seconds(1) else { throw error }
                log.warning("recording \(outcomes.count) delivery outcomes failed, retrying: \(error)")
                sleepThread(for: .milliseconds(500))
            }
        }
    }
}
