import Foundation

/// One piece of Herald's background work, described: a named loop that takes a step every
/// `interval` (sooner when its bell rings or a step asks), on every instance or on the leader
/// only. `BackgroundRuntime` runs it; the description says nothing of threads.
struct BackgroundService: Sendable {
    enum Scope: String, Sendable {
        /// Safe on every instance at once (its work is claimed with leases or SKIP LOCKED, or it
        /// is this process's own), and faster for it.
        case everyInstance = "every_instance"
        /// Must run once per deployment (it deletes, folds or calls a rate-limited API): only on
        /// the instance that holds the leader lease.
        case leader
    }

    /// What a step is told: which of the service's threads takes it, and whether the runtime is
    /// stopping (a step that blocks, as the notification listener does, returns when it is).
    struct Pass: Sendable {
        var thread: Int
        var isStopping: @Sendable () -> Bool
    }

    var name: String
    var scope: Scope
    /// The longest wait between two steps.
    var interval: Duration
    /// The wait before the first step (a poll of an outside API need not delay startup).
    var firstStepAfter: Duration = .zero
    /// Threads taking steps side by side (webhook dispatch posts to several receivers at once).
    var threads = 1
    /// Rung when work is there (a notification); the runtime makes one when none is given.
    var bell: Wakeup?
    /// One step; returns how long to wait at most before the next (nil: the interval).
    var step: @Sendable (Pass) throws -> Duration?
    /// Runs once on each thread after its last step.
    var finish: (@Sendable (Int) -> Void)?

    init(_ name: String, _ scope: Scope, every interval: Duration, threads: Int = 1, firstStepAfter: Duration = .zero,
         bell: Wakeup? = nil, step: @escaping @Sendable (Pass) throws -> Duration?, finish: (@Sendable (Int) -> Void)? = nil) {
        self.name = name
        self.scope = scope
        self.interval = interval
        self.threads = threads
        self.firstStepAfter = firstStepAfter
        self.bell = bell
        self.step = step
        self.finish = finish
    }

    /// How one service has run in this process: what /metrics and `herald doctor` show.
    struct State: Sendable, Equatable {
        var name: String
        var scope: Scope
        var intervalSeconds: Double
        var threads: Int
        var steps = 0
        var errors = 0
        /// When the last step began and how long it took; nil before the first.
        var lastStarted: Date?
        var lastDurationSeconds: Double?
        var lastError: String?
        /// Whether the last step failed (errors counts all of them).
        var lastFailed = false
        /// Leader-only services wait while this instance is not the leader.
        var waitingForLeadership = false
    }
}
