/// When to try again after a failure: a wait doubling from `base` after the first failed attempt
/// up to `maximum`, and no attempt after the `attempts`th. The one retry schedule of every retry
/// Herald makes (FCM's requests, the Data API, topic subscriptions, webhook deliveries); what a
/// caller adds to it (FCM's `Retry-After`, its minute after QUOTA_EXCEEDED) it adds on top.
public struct Backoff: Sendable, Equatable {
    /// How the wait is spread around its ceiling, so that what failed together does not retry together.
    public enum Jitter: Sendable, Equatable {
        /// Anywhere from zero to the ceiling: FCM's guidance for its senders.
        case full
        /// The ceiling and up to a tenth more: a schedule that keeps its pace (a webhook receiver's
        /// outage of days) and still spreads the receivers that came back at once.
        case upToATenthMore
    }

    public var base: Duration
    public var maximum: Duration
    /// Attempts in all, the first included.
    public var attempts: Int
    public var jitter: Jitter

    public init(base: Duration, maximum: Duration, attempts: Int, jitter: Jitter) {
        self.base = base
        self.maximum = maximum
        self.attempts = attempts
        self.jitter = jitter
    }

    /// `min(maximum, base × 2^(attempt-1))`: the wait's ceiling after failed attempt `attempt` (1 for the first).
    public func ceiling(afterAttempt attempt: Int) -> Duration {
        let doublings = min(max(attempt - 1, 0), 62)
        let seconds = base.seconds * Double(1 << Int64(doublings))
        return seconds >= maximum.seconds ? maximum : .nanoseconds(Int64(seconds * 1e9))
    }

    /// The wait after failed attempt `attempt`, or nil when that was the last; `draw`, in 0...1,
    /// places it within the jitter (the caller draws it: tests seed their generator).
    public func delay(afterAttempt attempt: Int, draw: Double) -> Duration? {
        attempt < attempts ? wait(afterAttempt: attempt, draw: draw) : nil
    }

    /// As `delay(afterAttempt:draw:)`, drawn at random.
    public func delay(afterAttempt attempt: Int) -> Duration? {
        delay(afterAttempt: attempt, draw: Double.random(in: 0...1))
    }

    /// The jittered wait after failed attempt `attempt`, whether or not another is allowed.
    public func wait(afterAttempt attempt: Int, draw: Double) -> Duration {
        let ceiling = ceiling(afterAttempt: attempt).seconds
        let seconds = switch jitter {
        case .full: ceiling * draw
        case .upToATenthMore: ceiling * (1 + draw / 10)
        }
        return .nanoseconds(Int64(seconds * 1e9))
    }
}
