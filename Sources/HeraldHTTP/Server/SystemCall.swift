import Glibc
import HeraldSync

/// A failed system call: its name and errno, with the C library's message.
public struct SystemCallError: Error, Equatable, CustomStringConvertible {
    /// The call that failed, e.g. `"bind"`.
    public let call: String
    /// The errno it left.
    public let errno: Int32

    public init(call: String, errno: Int32) {
        self.call = call
        self.errno = errno
    }

    public var description: String { "\(call) failed: \(String(cString: strerror(errno))) (errno \(errno))" }
}

/// Runs a system call that returns -1 and sets errno on failure, in the one way every call here
/// needs (after swift-nio's `syscall(blocking:where:_:)`): retried on EINTR, `nil` on
/// EAGAIN/EWOULDBLOCK (the non-blocking "try again later"), anything else thrown with its name.
@inline(__always)
func systemCall<T: FixedWidthInteger>(_ name: StaticString, _ body: () -> T) throws(SystemCallError) -> T? {
    while true {
        let result = body()
        if result != -1 { return result }
        let error = Glibc.errno
        switch error {
        case EINTR: continue
        case EAGAIN, EWOULDBLOCK: return nil
        default: throw SystemCallError(call: "\(name)", errno: error)
        }
    }
}

/// Like `systemCall`, for calls on blocking descriptors where EAGAIN cannot mean "later".
@inline(__always)
func blockingSystemCall<T: FixedWidthInteger>(_ name: StaticString, _ body: () -> T) throws(SystemCallError) -> T {
    while true {
        let result = body()
        if result != -1 { return result }
        let error = Glibc.errno
        if error == EINTR { continue }
        throw SystemCallError(call: "\(name)", errno: error)
    }
}

/// Monotonic time in nanoseconds, the clock every deadline uses.
func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

extension Duration {
    /// Whole nanoseconds, saturating at zero for negative durations.
    var nanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0 else { return 0 }
        return UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
    }
}

/// Starts a named thread (HeraldSync's), its failure reported as the system call that failed.
func startServerThread(name: String, _ body: @escaping @Sendable () -> Void) throws(SystemCallError) {
    do {
        try startThread(name: name, body)
    } catch {
        throw SystemCallError(call: "pthread_create", errno: error.errno)
    }
}
