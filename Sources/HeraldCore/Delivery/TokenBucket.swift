/// The project's sending quota as a token bucket: it refills at `ratePerSecond` up to `capacity`,
/// a send takes one token, and a 429 from FCM holds it shut until `notBefore` for everyone who
/// shares it. Pure arithmetic on seconds: the store keeps one per FCM project in PostgreSQL, so
/// every instance draws from the same bucket, on the database's clock.
///
/// In any window of `w` seconds at most `capacity + ratePerSecond × w` tokens are taken: with the
/// capacity one worker round, a minute never sees more than the limit plus one round.
public struct TokenBucket: Sendable, Equatable {
    public var ratePerSecond: Double
    public var capacity: Double
    public var tokens: Double
    /// When `tokens` was counted (seconds since 1970).
    public var refilledAt: Double
    /// Nothing is granted before this (seconds since 1970): FCM asked everyone to wait.
    public var notBefore: Double

    public init(ratePerSecond: Double, capacity: Double, tokens: Double, refilledAt: Double, notBefore: Double = 0) {
        self.ratePerSecond = ratePerSecond
        self.capacity = capacity
        self.tokens = tokens
        self.refilledAt = refilledAt
        self.notBefore = notBefore
    }

    /// What a take got: `granted` tokens, and when none, how long until one may be.
    public struct Grant: Sendable, Equatable {
        public var granted: Int
        public var wait: Double

        public init(granted: Int, wait: Double) {
            self.granted = granted
            self.wait = wait
        }
    }

    /// Tokens refilled up to `now` (a clock that went back refills nothing).
    public mutating func refill(at now: Double) {
        tokens = min(capacity, tokens + max(0, now - refilledAt) * ratePerSecond)
        refilledAt = max(refilledAt, now)
    }

    /// Takes up to `wanted` whole tokens at `now`, or none while fewer than `minimum` are there
    /// (then `wait` says when they will be). Workers that share a bucket at its rate would
    /// otherwise each take the trickle since the last take: rounds of a few messages, each paying
    /// a round's fixed cost in the database.
    public mutating func take(_ wanted: Int, atLeast minimum: Int = 1, at now: Double) -> Grant {
        refill(at: now)
        if now < notBefore { return Grant(granted: 0, wait: notBefore - now) }
        let least = Double(max(1, min(minimum, wanted, Int(capacity))))
        // (A millionth of a token of slack: the refill's floating point must not leave a worker
        // coming back for the last 1e-12 of a token.)
        if tokens + 1e-6 < least {
            return Grant(granted: 0, wait: ratePerSecond > 0 ? (least - tokens) / ratePerSecond : 0)
        }
        let granted = max(0, min(wanted, Int((tokens + 1e-6).rounded(.down))))
        tokens = max(0, tokens - Double(granted))
        return Grant(granted: granted, wait: 0)
    }

    /// Tokens taken but not used (fewer deliveries were ready) go back.
    public mutating func giveBack(_ count: Int) {
        tokens = min(capacity, tokens + Double(max(0, count)))
    }

    /// FCM answered 429: nobody sends before `until`, and the bucket starts empty then, so the
    /// sending resumes at the rate rather than with a burst.
    public mutating func hold(until: Double) {
        notBefore = max(notBefore, until)
        tokens = 0
        refilledAt = max(refilledAt, notBefore)
    }
}
