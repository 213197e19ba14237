import Glibc

extension Duration {
    /// The duration in seconds (for metrics, SQL intervals and JSON).
    public var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// The duration as a `timespec` (negative durations as zero).
    public var timespec: Glibc.timespec {
        guard self > .zero else { return Glibc.timespec() }
        return Glibc.timespec(tv_sec: Int(components.seconds), tv_nsec: Int(components.attoseconds / 1_000_000_000))
    }
}

/// Sleeps the calling thread for `duration`, resuming after signals (EINTR) until it has passed.
public func sleepThread(for duration: Duration) {
    var request = duration.timespec
    var remaining = timespec()
    while nanosleep(&request, &remaining) == -1, errno == EINTR { request = remaining }
}

/// Seconds on the monotonic clock (for intervals between threads; unrelated to the wall clock).
public func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}
