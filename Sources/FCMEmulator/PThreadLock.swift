#if canImport(Glibc)
import Glibc
#endif

/// State behind a pthread mutex. The emulator's handler threads outnumber the cores and take
/// this lock on every request; `Synchronization.Mutex` spins in user space before it sleeps,
/// which showed up as a fifth of the emulator's CPU under load, while a pthread mutex sleeps
/// promptly.
final class PThreadLocked<State>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var state: State  // guarded by `mutex`

    init(_ state: State) {
        self.state = state
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state)
    }
}
