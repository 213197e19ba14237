import CLinux
import Glibc

/// Why a thread could not be started (`pthread_create`'s error number).
public struct ThreadStartError: Error, Sendable, Equatable {
    public let errno: Int32
}

/// Starts a detached pthread running `body`, named (the first 15 bytes) for `top` and debuggers.
@discardableResult
public func startThread(name: String, _ body: @escaping @Sendable () -> Void) throws(ThreadStartError) -> pthread_t {
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
        throw ThreadStartError(errno: status)
    }
    pthread_setname_np(thread, String(name.prefix(15)))
    pthread_detach(thread)
    return thread
}
