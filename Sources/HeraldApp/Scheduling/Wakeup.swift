import Synchronization

/// A doorbell the listener rings when PostgreSQL says work is there, so the scheduler and workers
/// wait on it with a timeout instead of polling fast. A ring between two waits is not lost.
final class Wakeup: Sendable {
    struct State: Sendable {
        var generation = 0
        var stopped = false
    }

    let state = Mutex(State())

    func ring() {
        state.withLock { $0.generation += 1 }
    }

    func stop() {
        state.withLock { $0.stopped = true }
    }

    var isStopped: Bool { state.withLock { $0.stopped } }

    var generation: Int { state.withLock { $0.generation } }

    /// Returns when the bell rings after `seen` (a `generation` read before the work was checked),
    /// when stopped, or after `timeout`; short sleeps keep it simple and bounded (5 ms steps).
    func wait(after seen: Int, timeout: Duration) {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while clock.now < deadline {
            let (generation, stopped) = state.withLock { ($0.generation, $0.stopped) }
            if generation != seen || stopped { return }
            let left = clock.now.duration(to: deadline)
            let step: Duration = .milliseconds(5)
            sleepFor(left < step ? left : step)
        }
    }

    private func sleepFor(_ duration: Duration) {
        let nanoseconds = duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
        var request = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        nanosleep(&request, nil)
    }
}

#if canImport(Glibc)
import Glibc
#endif
