import Foundation
import HeraldPostgres
import HeraldSync
import Synchronization

/// Runs Herald's background services, each on named threads of its own (a slow chore delays no
/// other), counts their steps and errors for /metrics and `herald doctor`, waits leader-only ones
/// while another instance leads, and joins every thread on stop. With a database to report to,
/// it writes the states to `background_instances` every few seconds (`herald doctor` reads them).
final class BackgroundRuntime: Sendable {
    let services: [BackgroundService]
    let leadership: Leadership
    let log: Log
    let metrics: Metrics
    private let threads = RunningThreads()
    private let stopping = Atomic(false)
    private let states: Locked<[String: BackgroundService.State]>
    /// Leader-only chores take turns, one step at a time: a fold or a retention pass may take
    /// seconds, and side by side they would hold as many of the pool's connections as there are
    /// chores, which the requests share.
    private let choreTurn = Locked(())

    static let stepBounds = [0.001, 0.01, 0.1, 1, 10, 60]
    /// How often an instance writes its report, and how long `herald doctor` counts it as running.
    static let reportInterval: Duration = .seconds(10)

    init(services: [BackgroundService], leadership: Leadership, reportingTo pool: PostgresPool? = nil, log: Log, metrics: Metrics) {
        var all = services
        if let lease = leadership.service { all.insert(lease, at: 0) }
        let states = Locked([String: BackgroundService.State]())
        if let pool {
            all.append(Self.reporting(states, order: all.map(\.name) + ["instance-report"], pool: pool, leadership: leadership))
        }
        for index in all.indices where all[index].bell == nil { all[index].bell = Wakeup() }
        states.withLock { states in
            for service in all {
                states[service.name] = BackgroundService.State(name: service.name, scope: service.scope, intervalSeconds: service.interval.seconds,
                                                               threads: service.threads)
            }
        }
        self.states = states
        self.services = all
        self.leadership = leadership
        self.log = log
        self.metrics = metrics
        leadership.gained.withLock { bells in
            bells += all.filter { $0.scope == .leader }.compactMap(\.bell)
        }
    }

    func start() {
        var bodies: [(name: String, body: @Sendable () -> Void)] = []
        for service in services {
            for thread in 0..<service.threads {
                bodies.append(("herald-\(service.name)\(service.threads > 1 ? "-\(thread)" : "")", { [self] in run(service, thread: thread) }))
            }
        }
        for name in threads.start(bodies) { log.error("\(name) could not be started: the system has no thread to spare") }
        log.info("background services started", ["services": .array(services.map { .string($0.name) })])
    }

    /// Asks every service to stop after its current step.
    func stop() {
        stopping.store(true, ordering: .releasing)
        for service in services { service.bell?.stop() }
    }

    var isStopping: Bool { stopping.load(ordering: .acquiring) }

    /// Waits up to `timeout` for every thread's last step (and its finish).
    @discardableResult
    func waitUntilStopped(timeout: Duration) -> Bool { threads.waitUntilStopped(timeout: timeout) }

    /// How many steps the service `name` has made (0 for one it does not run).
    func steps(of name: String) -> Int { states.withLock { $0[name]?.steps ?? 0 } }

    /// The services as they ran so far, in the order they were given.
    var report: [BackgroundService.State] {
        let states = states.withLock { $0 }
        return services.compactMap { states[$0.name] }
    }

    func run(_ service: BackgroundService, thread: Int) {
        let bell = service.bell ?? Wakeup()
        let pass = BackgroundService.Pass(thread: thread, isStopping: { [self] in isStopping })
        if service.firstStepAfter > .zero { bell.wait(after: bell.generation, timeout: service.firstStepAfter) }
        // A failing step is tried again after 1 s, doubling while it keeps failing (up to its
        // interval, and 256 s): a database that is down, or an API that refuses, is not
        // asked every second for an hour.
        var failuresInARow = 0
        while !isStopping {
            let seen = bell.generation
            var wait = service.interval
            if service.scope == .leader && !leadership.isLeader {
                update(service.name) { $0.waitingForLeadership = true }
                bell.wait(after: seen, timeout: service.interval)  // `Leadership` rings it when this instance leads
                continue
            }
            let started = Date()
            let clock = ContinuousClock.now
            var failure: String?
            do {
                // A chore that waited for its turn while the runtime began to stop does not step:
                // the chores waiting behind one another would otherwise each step once more, one
                // after the other, and a stop would wait for them all.
                let sooner = try service.scope == .leader
                    ? choreTurn.withLock { _ in isStopping ? nil : try service.step(pass) }
                    : service.step(pass)
                if let sooner { wait = min(wait, sooner) }
            } catch {
                failure = "\(error)"
                log.warning("\(service.name): \(error)")
                failuresInARow += 1
                wait = min(wait, .seconds(1 << min(failuresInARow - 1, 8)))
            }
            if failure == nil { failuresInARow = 0 }
            let seconds = clock.duration(to: .now).seconds
            update(service.name) { state in
                state.steps += 1
                state.lastStarted = started
                state.lastDurationSeconds = seconds
                state.lastFailed = failure != nil
                state.waitingForLeadership = false
                if let failure {
                    state.errors += 1
                    state.lastError = failure
                }
            }
            metrics.observe("herald_background_step_seconds", seconds, [("service", service.name)], bounds: Self.stepBounds,
                            help: "Steps of each background service in this process, by how long they took.")
            if failure != nil {
                metrics.increment("herald_background_errors_total", [("service", service.name)],
                                  help: "Steps of each background service in this process that failed (the step is tried again).")
            }
            bell.wait(after: seen, timeout: wait)
        }
        service.finish?(thread)
    }

    /// The service that writes this instance's report; the leader also drops instances unseen for a day.
    static func reporting(_ states: Locked<[String: BackgroundService.State]>, order: [String], pool: PostgresPool,
                          leadership: Leadership) -> BackgroundService {
        let startedAt = Date()
        let store = InstanceReportStore()
        return BackgroundService("instance-report", .everyInstance, every: reportInterval, step: { _ in
            let report = states.withLock { states in order.compactMap { states[$0] } }
            try pool.withConnection { connection in
                try store.write(owner: leadership.owner, startedAt: startedAt, services: report, on: connection)
                if leadership.isLeader { try store.dropUnseen(forDays: 1, on: connection) }
            }
            return nil
        }, finish: { _ in
            do { try pool.withConnection { try store.stopped(owner: leadership.owner, on: $0) } } catch {}  // it reads as unseen instead
        })
    }

    private func update(_ name: String, _ change: (inout BackgroundService.State) -> Void) {
        states.withLock { states in
            if var state = states[name] {
                change(&state)
                states[name] = state
            }
        }
    }

    /// The services' gauges for /metrics: whether this instance leads, and each service's last step.
    var gauges: [Metrics.Gauge] {
        let report = report
        return [
            Metrics.Gauge(name: "herald_background_leader", help: "1 while this instance holds the leader lease (runs the once-per-deployment chores).",
                          series: [([], leadership.isLeader ? 1 : 0)]),
            Metrics.Gauge(name: "herald_background_last_step_timestamp_seconds",
                          help: "When each background service last began a step (Unix seconds); 0 before its first.",
                          series: report.map { ([("service", $0.name), ("scope", $0.scope.rawValue)], $0.lastStarted?.timeIntervalSince1970 ?? 0) }),
            Metrics.Gauge(name: "herald_background_last_step_failed", help: "1 when a background service's last step failed.",
                          series: report.map { ([("service", $0.name)], $0.lastFailed ? 1 : 0) }),
            Metrics.Gauge(name: "herald_background_waiting_for_leader", help: "1 when a leader-only service waits because another instance leads.",
                          series: report.map { ([("service", $0.name)], $0.waitingForLeadership ? 1 : 0) }),
        ]
    }
}
