import Synchronization

/// Named threads started together and counted until each body returns, so that an owner that
/// stops them can wait (bounded) for their last step.
public final class RunningThreads: Sendable {
    private let running = Mutex(0)

    public init() {}

    /// Starts one thread per body, named as given; returns the names of those the system
    /// refused to start (none unless it is out of threads).
    @discardableResult
    public func start(_ bodies: [(name: String, body: @Sendable () -> Void)]) -> [String] {
        var refused: [String] = []
        for (name, body) in bodies {
            running.withLock { $0 += 1 }
            do {
                try startThread(name: name) { [self] in
                    body()
                    running.withLock { $0 -= 1 }
                }
            } catch {
                running.withLock { $0 -= 1 }
                refused.append(name)
            }
        }
        return refused
    }

    /// Waits up to `timeout` for every thread to return; whether they all did.
    @discardableResult
    public func waitUntilStopped(timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while running.withLock({ $0 }) > 0 {
            guard ContinuousClock.now < deadline else { return false }
            sleepThread(for: .milliseconds(10))
        }
        return true
    }
}
