import FCMMessage
import HeraldSync

/// When to try a failed send again, following FCM's guidance ("Best practices when sending FCM
/// messages at scale"): exponential backoff with full jitter, at least a minute after
/// QUOTA_EXCEEDED, never sooner than `Retry-After`, and never for a permanent error.
///
/// Pure: the scheduler stores `delay(forAttempt:outcome:)` as the next attempt time, and
/// `FCMSender.sendWithRetries` sleeps it.
public struct RetryPolicy: Sendable, Equatable {
    /// The schedule under FCM's own additions: full jitter up to a doubling ceiling, as FCM asks.
    public var backoff: Backoff
    /// The least wait after QUOTA_EXCEEDED (FCM: "at least one minute").
    public var quotaExceededMinimumDelay: Duration
    /// The longest a caller will wait for a retry; a retry due later (a long `Retry-After`) is not
    /// made, and the error, with its retry time, is the answer. Nil: any wait (the scheduler's).
    public var longestWait: Duration?

    /// `maxAttempts`: attempts in all, the first included; `baseDelay`: the backoff ceiling after
    /// the first failure, doubling after each further one up to `maxDelay` (a server's
    /// `Retry-After` may still ask for more).
    public init(
        maxAttempts: Int = 8,
        baseDelay: Duration = .seconds(1),
        maxDelay: Duration = .seconds(60),
        quotaExceededMinimumDelay: Duration = .seconds(60),
        longestWait: Duration? = nil
    ) {
        backoff = Backoff(base: baseDelay, maximum: maxDelay, attempts: maxAttempts, jitter: .full)
        self.quotaExceededMinimumDelay = quotaExceededMinimumDelay
        self.longestWait = longestWait
    }

    /// Attempts in all, the first included; after the last one nothing is retried.
    public var maxAttempts: Int { backoff.attempts }

    /// The wait before the next attempt after attempt number `attempt` (1 for the first) ended
    /// with `outcome`; nil when there is to be no next attempt: the send succeeded, the error is
    /// permanent, or the attempts are used up.
    public func delay(forAttempt attempt: Int, outcome: SendOutcome) -> Duration? {
        var generator = SystemRandomNumberGenerator()
        return delay(forAttempt: attempt, outcome: outcome, using: &generator)
    }

    /// As `delay(forAttempt:outcome:)`, drawing the jitter from `generator` (tests seed it).
    public func delay(forAttempt attempt: Int, outcome: SendOutcome, using generator: inout some RandomNumberGenerator) -> Duration? {
        // One guard of this shape: another (the backoff's optional bound as the error's borrow
        // ends) crashed Swift 6.3.1's optimiser in release builds ("Found ownership error").
        guard case .failed(let error) = outcome, error.isRetryable, attempt < maxAttempts else { return nil }
        var wait = backoff.wait(afterAttempt: attempt, draw: Double.random(in: 0...1, using: &generator))
        if error.code == .quotaExceeded { wait = max(wait, quotaExceededMinimumDelay) }
        if let retryAfter = error.retryAfter { wait = max(wait, retryAfter) }
        if let longestWait, wait > longestWait { return nil }
        return wait
    }

    /// `min(maxDelay, baseDelay × 2^(attempt-1))`: the most the jittered backoff waits after
    /// attempt number `attempt`.
    public func backoffCeiling(afterAttempt attempt: Int) -> Duration {
        backoff.ceiling(afterAttempt: attempt)
    }
}
