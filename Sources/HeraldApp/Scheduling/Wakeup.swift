import HeraldSync

/// A doorbell the listener rings when PostgreSQL says work is there, so the scheduler and workers
/// sleep on it with a timeout instead of polling. A ring between two waits is not lost: waiters
/// pass the generation they read before looking for work, and any ring since then wakes them.
final class Wakeup: Sendable {
    private struct State {
        var generation = 0
        var stopped = false
    }

    private let lock = ConditionLock(State())

    func ring() {
        lock.withLock { $0.generation += 1 }
        lock.broadcast()
    }

    func stop() {
        lock.withLock { $0.stopped = true }
        lock.broadcast()
    }

    var isStopped: Bool { lock.withLock { $0.stopped } }

    var generation: Int { lock.withLock { $0.generation } }

    /// Returns when the bell rings after `seen` (a `generation` read before the work was checked),
    /// when stopped, or after `timeout`.
    func wait(after seen: Int, timeout: Duration) {
        _ = lock.wait(until: monotonicDeadline(after: timeout)) { state in
            state.generation != seen || state.stopped ? true : nil
        }
    }
}
