/// Which of a process's workers asks the shared quota next, and when. Workers that each asked
/// whenever the bucket was short all woke at the same refill, and all but one found it empty:
/// with two instances of four workers, seven transactions on the bucket's row in vain for each
/// round sent, about half of PostgreSQL's CPU per message. So one worker of a process asks at a
/// time, and none asks before the bucket can hold a round by what it said last. Times are
/// seconds on a monotonic clock; the bucket itself (and so the quota) is unchanged.
public struct QuotaTurn: Sendable, Equatable {
    /// A worker of this process is asking now.
    public private(set) var asking = false
    /// Nobody of this process asks before this.
    public private(set) var nextAsk: Double = 0

    /// While another worker asks, a worker looks again after this long (the ask is one short
    /// transaction).
    public static let whileAsking = 0.002

    public init() {}

    /// Whether the worker may ask at `now`: nil when it may (it is the asker until `answered`),
    /// else how long to wait before looking again.
    public mutating func mayAsk(at now: Double) -> Double? {
        if asking { return Self.whileAsking }
        if now < nextAsk { return nextAsk - now }
        asking = true
        return nil
    }

    /// The bucket answered the asker at `now`: a round may be there again after `wait` seconds
    /// (0: at once).
    public mutating func answered(at now: Double, wait: Double) {
        asking = false
        nextAsk = now + max(0, wait)
    }
}

extension TokenBucket {
    /// Seconds until the bucket holds `least` tokens again, by what it held after a take: how long
    /// the other workers leave it alone after a round was granted.
    public static func refillWait(tokensLeft: Double, least: Int, ratePerSecond: Double) -> Double {
        ratePerSecond > 0 ? max(0, (Double(least) - tokensLeft) / ratePerSecond) : 0
    }
}
