import HeraldCore
import Testing

/// One asker per process at the shared bucket, on a simulated clock.
@Suite struct QuotaTurnTests {
    /// Two processes of four workers share 10,000 tokens a second in rounds of 250, each round
    /// taking 20 ms to send. With the turn, the bucket is asked about once for each round it
    /// grants (at most the other process's ask in vain); without it, every waiting worker asks at
    /// each refill. Both use the rate.
    @Test func oneWorkerOfAProcessAsksAtATimeAndOnlyWhenARoundCanBeThere() {
        let withTurn = simulate(usingTurns: true)
        let without = simulate(usingTurns: false)
        #expect(withTurn.granted >= 95_000 && without.granted >= 95_000)
        #expect(withTurn.asksInVain <= withTurn.rounds)
        #expect(without.asksInVain > 3 * withTurn.asksInVain)
    }

    @Test func anotherWorkerWaitsWhileOneAsksAndUntilTheRefill() {
        var turn = QuotaTurn()
        #expect(turn.mayAsk(at: 1) == nil)
        #expect(turn.mayAsk(at: 1) == QuotaTurn.whileAsking)
        turn.answered(at: 1.001, wait: 0.024)
        #expect(abs((turn.mayAsk(at: 1.010) ?? 0) - 0.015) < 1e-9)
        #expect(turn.mayAsk(at: 1.025) == nil)
        turn.answered(at: 1.026, wait: 0)
        #expect(turn.mayAsk(at: 1.026) == nil)
        // A round granted with 100 tokens left of 250 wanted at 10,000 a second: 15 ms to refill.
        #expect(abs(TokenBucket.refillWait(tokensLeft: 100, least: 250, ratePerSecond: 10_000) - 0.015) < 1e-9)
        #expect(TokenBucket.refillWait(tokensLeft: 300, least: 250, ratePerSecond: 10_000) == 0)
    }

    private func simulate(usingTurns: Bool) -> (granted: Int, rounds: Int, asksInVain: Int) {
        let rate = 10_000.0, round = 250
        var bucket = TokenBucket(ratePerSecond: rate, capacity: 256, tokens: 256, refilledAt: 0)
        var turns = [QuotaTurn(), QuotaTurn()]
        // (wakes at, process) per worker, four a process.
        var workers = (0..<8).map { (wake: Double($0) * 0.0001, process: $0 / 4) }
        var granted = 0, rounds = 0, inVain = 0
        while true {
            let index = workers.indices.min { workers[$0].wake < workers[$1].wake }!
            let (now, process) = workers[index]
            guard now < 10 else { break }
            if usingTurns, let wait = turns[process].mayAsk(at: now) {
                workers[index].wake = now + wait
                continue
            }
            let grant = bucket.take(256, atLeast: round, at: now)
            if grant.granted > 0 {
                granted += grant.granted
                rounds += 1
                turns[process].answered(at: now, wait: TokenBucket.refillWait(tokensLeft: bucket.tokens, least: round, ratePerSecond: rate))
                workers[index].wake = now + 0.020
            } else {
                inVain += 1
                turns[process].answered(at: now, wait: grant.wait)
                workers[index].wake = now + grant.wait
            }
        }
        return (granted, rounds, inVain)
    }
}
