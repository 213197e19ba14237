import Glibc

/// State behind a pthread mutex. A pthread mutex sleeps promptly where `Synchronization.Mutex`
/// spins in user space first, which showed up as a fifth of the emulator's CPU when its handler
/// threads outnumbered the cores; and `ConditionLock` needs the raw mutex for its waits.
public final class Locked<State>: @unchecked Sendable {
    let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    var state: State  // guarded by `mutex`

    public init(_ state: State) {
        self.state = state
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the state, holding the lock.
    public func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state)
    }
}
