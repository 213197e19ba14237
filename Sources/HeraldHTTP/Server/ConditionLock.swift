import CLinux
import Glibc

/// A pthread mutex with a condition variable, for threads that must sleep until told
/// (`Synchronization.Mutex` has no condition). The pointers are allocated once and never move.
final class ConditionLock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Runs `body` holding the lock.
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Sleeps until signalled; call only while holding the lock (inside `withLock`).
    func wait() { pthread_cond_wait(condition, mutex) }

    /// Wakes one waiter.
    func signal() { pthread_cond_signal(condition) }

    /// Wakes every waiter.
    func broadcast() { pthread_cond_broadcast(condition) }
}

/// Starts a detached-by-default pthread running `body`; named for `top` and debuggers.
@discardableResult
func startThread(name: String, _ body: @escaping @Sendable () -> Void) throws(SystemCallError) -> pthread_t {
    final class Box { let body: @Sendable () -> Void; init(_ body: @escaping @Sendable () -> Void) { self.body = body } }
    let context = Unmanaged.passRetained(Box(body)).toOpaque()
    var thread = pthread_t()
    let status = pthread_create(&thread, nil, { context in
        let box = Unmanaged<Box>.fromOpaque(context!).takeRetainedValue()
        box.body()
        return nil
    }, context)
    guard status == 0 else {
        Unmanaged<Box>.fromOpaque(context).release()
        throw SystemCallError(call: "pthread_create", errno: status)
    }
    pthread_setname_np(thread, String(name.prefix(15)))
    pthread_detach(thread)
    return thread
}
