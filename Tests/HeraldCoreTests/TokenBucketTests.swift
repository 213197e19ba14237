import HeraldCore
import HeraldFCM
import Testing

/// The shared quota's arithmetic on a simulated clock.
@Suite struct TokenBucketTests {
    /// Workers asking for at least a round each take a whole round in turn, at the same rate:
    /// eight workers at 10,000 a second take 250 at a time, not the trickle since the last take.
    @Test func aMinimumMakesWorkersTakeWholeRoundsInTurnAtTheSameRate() {
        var bucket = TokenBucket(ratePerSecond: 10_000, capacity: 256, tokens: 0, refilledAt: 0)
        var taken: [Int] = []
        var now = 0.0
        while now < 10 {
            // The next worker asks a millisecond after a take, or when it was told to come back.
            let grant = bucket.take(256, atLeast: 250, at: now)
            if grant.granted > 0 {
                taken.append(grant.granted)
                now += 0.001
            } else {
                #expect(grant.wait > 0 && grant.wait <= 0.025)
                now += grant.wait
            }
        }
        #expect(taken.allSatisfy { $0 >= 250 })
        #expect(taken.reduce(0, +) >= 99_000)  // the rate is used
        // A minimum above the capacity is the capacity; one token is always enough at a low rate.
        var small = TokenBucket(ratePerSecond: 0.1, capacity: 32, tokens: 1, refilledAt: 0)
        #expect(small.take(32, atLeast: 0, at: 0).granted == 1)
        var full = TokenBucket(ratePerSecond: 10, capacity: 32, tokens: 32, refilledAt: 0)
        #expect(full.take(64, atLeast: 500, at: 0).granted == 32)
    }

    /// 6,000 a minute taken by eight greedy workers at random moments for ten minutes: no rolling
    /// minute holds more than the limit plus one worker round (the bucket's capacity), and the
    /// rate is used, not wasted.
    @Test func noRollingMinuteExceedsTheLimitPlusOneRound() {
        var bucket = TokenBucket(ratePerSecond: 100, capacity: 32, tokens: 32, refilledAt: 0)
        var generator = SplitMix64(state: 15)
        var takes: [(at: Double, count: Int)] = []
        var now = 0.0
        while now < 600 {
            now += Double.random(in: 0...0.05, using: &generator)
            let grant = bucket.take(Int.random(in: 1...32, using: &generator), at: now)
            if grant.granted > 0 { takes.append((now, grant.granted)) }
        }
        var windowStart = 0, inWindow = 0, most = 0
        for take in takes {
            inWindow += take.count
            while takes[windowStart].at <= take.at - 60 {
                inWindow -= takes[windowStart].count
                windowStart += 1
            }
            most = max(most, inWindow)
        }
        #expect(most <= 6_000 + 32)
        #expect(most >= 5_900)  // the rate is used
        #expect(takes.map(\.count).reduce(0, +) >= 59_000)
    }

    @Test func anEmptyBucketSaysHowLongUntilTheNextToken() {
        var bucket = TokenBucket(ratePerSecond: 10, capacity: 5, tokens: 5, refilledAt: 100)
        #expect(bucket.take(8, at: 100) == .init(granted: 5, wait: 0))
        let empty = bucket.take(1, at: 100.05)
        #expect(empty.granted == 0)
        #expect(abs(empty.wait - 0.05) < 1e-9)
        #expect(bucket.take(3, at: 100.4).granted == 3)
        // Tokens not used go back, never above the capacity.
        bucket.giveBack(100)
        #expect(bucket.tokens == 5)
    }

    @Test func aHoldAfterA429GrantsNothingUntilItEndsAndThenStartsEmpty() {
        var bucket = TokenBucket(ratePerSecond: 100, capacity: 32, tokens: 32, refilledAt: 0)
        bucket.hold(until: 60)
        let held = bucket.take(10, at: 1)
        #expect(held.granted == 0)
        #expect(held.wait == 59)
        #expect(bucket.take(10, at: 59.99).granted == 0)
        // At the end of the hold the rate resumes, not a burst of everything saved up.
        #expect(bucket.take(32, at: 60.1).granted == 10)
        // A shorter hold asked later does not shorten the one in force.
        bucket.hold(until: 100)
        bucket.hold(until: 80)
        #expect(bucket.notBefore == 100)
    }

    @Test func aClockThatGoesBackRefillsNothing() {
        var bucket = TokenBucket(ratePerSecond: 100, capacity: 32, tokens: 0, refilledAt: 50)
        #expect(bucket.take(5, at: 49).granted == 0)
        #expect(bucket.refilledAt == 50)
    }
}

