import Foundation

// Swift Testing runs every test on the cooperative pool: as many threads as cores, two on CI.
// A test that blocks one of them (a poll with usleep, a server draining its requests, a group's
// wait) takes that thread from every other test for as long; two at once stopped the whole suite
// for minutes, and tests then failed by time limits that had nothing to do with them. What
// blocks for long goes to a thread of its own with these.

/// Awaits `body`, run on a thread of its own.
public func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
}

/// Runs `body` on a thread of its own and returns at once: a teardown's wait (a server finishing
/// its requests) that nothing after it needs.
public func inTheBackground(_ body: @escaping @Sendable () -> Void) {
    Thread.detachNewThread(body)
}

/// A value handed to such a thread as it is: for what the test does not touch meanwhile (it
/// awaits the thread), which the compiler cannot know.
public struct Unchecked<Value>: @unchecked Sendable {
    public let value: Value
    public init(_ value: Value) { self.value = value }
}
