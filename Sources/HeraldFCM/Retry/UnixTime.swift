#if canImport(Glibc)
import Glibc
#endif
import HeraldSync

/// A wall-clock time in seconds since 1970, UTC: what JWT claims and HTTP dates are measured in.
public struct UnixTime: Sendable, Hashable, Comparable {
    public var seconds: Double

    public init(seconds: Double) { self.seconds = seconds }

    /// The current wall-clock time.
    public static func now() -> UnixTime {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return UnixTime(seconds: Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9)
    }

    public static func < (lhs: UnixTime, rhs: UnixTime) -> Bool { lhs.seconds < rhs.seconds }
}

