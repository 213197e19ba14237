import Glibc

/// State guarded by a pthread mutex, with a condition variable for waits that end at a
/// deadline. (`Synchronization.Mutex` has no condition variable.)
public final class ConditionLock<State>: @unchecked Sendable {
    private let locked: Locked<State>
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var mutex: UnsafeMutablePointer<pthread_mutex_t> { locked.mutex }

    public init(_ state: State) {
        locked = Locked(state)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        // Deadlines on the monotonic clock, so a wall-clock jump does not shorten or stretch waits.
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deallocate()
    }

    /// Runs `body` with the state, holding the lock.
    public func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
        try locked.withLock(body)
    }

    /// Calls `attempt` under the lock until it returns a value, sleeping until signalled between
    /// attempts, for as long as that takes.
    public func wait<R>(_ attempt: (inout State) throws -> R?) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while true {
            if let value = try attempt(&locked.state) { return value }
            pthread_cond_wait(condition, mutex)
        }
    }

    /// Calls `attempt` under the lock until it returns a value, waiting for a signal between
    /// attempts; nil once `deadline` has passed. `onWait(state, true/false)` brackets each wait.
    public func wait<R>(
        until deadline: timespec,
        onWait: (inout State, Bool) -> Void = { _, _ in },
        _ attempt: (inout State) throws -> R?
    ) rethrows -> R? {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        var deadline = deadline
        while true {
            if let value = try attempt(&locked.state) { return value }
            onWait(&locked.state, true)
            let result = pthread_cond_timedwait(condition, mutex, &deadline)
            onWait(&locked.state, false)
            if result == ETIMEDOUT { return try attempt(&locked.state) }
        }
    }

    /// Wakes one waiter.
    public func signal() { pthread_cond_signal(condition) }

    /// Wakes every waiter.
    public func broadcast() { pthread_cond_broadcast(condition) }
}

/// The monotonic clock now plus `duration`, as a pthread deadline.
public func monotonicDeadline(after duration: Duration) -> timespec {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    let (seconds, attoseconds) = duration.components
    var nanoseconds = Int(now.tv_nsec) + Int(attoseconds / 1_000_000_000)
    var wholeSeconds = Int(now.tv_sec) + Int(max(seconds, 0))
    if nanoseconds >= 1_000_000_000 {
        nanoseconds -= 1_000_000_000
        wholeSeconds += 1
    }
    if seconds < 0 { return now }
    return timespec(tv_sec: wholeSeconds, tv_nsec: nanoseconds)
}
