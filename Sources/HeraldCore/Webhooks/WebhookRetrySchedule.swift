/// When a webhook delivery that failed is tried again: doubling from `base` up to `maximum`
/// between attempts, and given up (dead) after `attempts` tries. The defaults keep trying for
/// about three days (a weekend's outage of the receiver): 10 s, 20 s, … then hourly.
public struct WebhookRetrySchedule: Sendable, Equatable {
    public var base: Double
    public var maximum: Double
    public var attempts: Int

    public init(base: Double = 10, maximum: Double = 3600, attempts: Int = 80) {
        self.base = base
        self.maximum = maximum
        self.attempts = attempts
    }

    /// Seconds to wait after failed attempt number `attempt` (1 for the first), or nil when that
    /// was the last. `jitter` in 0..<1 spreads receivers that came back at once by up to a tenth.
    public func delay(afterAttempt attempt: Int, jitter: Double) -> Double? {
        guard attempt < attempts else { return nil }
        let doubled = base * Double(1 << min(max(attempt - 1, 0), 30))
        return min(doubled, maximum) * (1 + jitter / 10)
    }
}
