#if canImport(Glibc)
import Glibc
#endif

/// A doorbell the listener rings when PostgreSQL says work is there, so the scheduler and workers
/// sleep on it with a timeout instead of polling. A ring between two waits is not lost: waiters
/// pass the generation they read before looking for work, and any ring since then wakes them.
///
/// A pthread condition variable on the monotonic clock; `@unchecked Sendable` because every access
/// to the state below happens under `mutex`.
final class Wakeup: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var currentGeneration = 0
    private var stopped = false

    init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }

    func ring() {
        locked {
            currentGeneration += 1
            pthread_cond_broadcast(condition)
        }
    }

    func stop() {
        locked {
            stopped = true
            pthread_cond_broadcast(condition)
        }
    }

    var isStopped: Bool { locked { stopped } }

    var generation: Int { locked { currentGeneration } }

    /// Returns when the bell rings after `seen` (a `generation` read before the work was checked),
    /// when stopped, or after `timeout`.
    func wait(after seen: Int, timeout: Duration) {
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        let (seconds, attoseconds) = timeout.components
        var nanoseconds = Int(deadline.tv_nsec) + Int(attoseconds / 1_000_000_000)
        deadline.tv_sec += Int(seconds) + nanoseconds / 1_000_000_000
        nanoseconds %= 1_000_000_000
        deadline.tv_nsec = nanoseconds
        locked {
            while currentGeneration == seen && !stopped {
                if pthread_cond_timedwait(condition, mutex, &deadline) == ETIMEDOUT { return }
            }
        }
    }
}
