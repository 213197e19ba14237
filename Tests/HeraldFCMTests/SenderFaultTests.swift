import FCMEmulator
import HeraldFCM
import HeraldJSON
import Testing

/// FCM's retry rules under injected faults, checked from the emulator's side: what arrived, when.
@Suite struct SenderFaultTests {
    @Test func underFaultsEveryMessageArrivesOnceAndRetryAfterIsHonoured() throws {
        let harness = try EmulatorHarness {
            $0.faults = FaultInjection(quotaExceeded: 0.1, unavailable: 0.3, retryAfterSeconds: 1, seed: 20_261_121)
            $0.messageCapacity = 1000
        }
        // Short backoff so the test is quick; the quota floor is off so that only Retry-After
        // (1 s from the emulator) holds 429s back, which is what this test watches.
        let policy = RetryPolicy(maxAttempts: 30, baseDelay: .milliseconds(20), maxDelay: .milliseconds(200), quotaExceededMinimumDelay: .zero)
        let (sender, _) = try harness.sender(policy: policy)

        let valid: [JSON] = (0..<60).map { ["topic": "news", "data": ["n": .string("\($0)")]] }
        let invalid: [JSON] = (60..<66).map { ["topic": "news", "data": ["n": .string("\($0)")], "notification": ["subtitle": "x"]] }
        let results = sender.sendWithRetries(batch: (valid + invalid).map { $0.serialized() }, concurrency: 8)

        // Every valid message is eventually accepted, exactly once.
        #expect(results.prefix(60).allSatisfy { $0.outcome.name != nil })
        let delivered = harness.emulator.messages().compactMap { $0.message["data"]?["n"]?.stringValue }
        #expect(delivered.sorted() == (0..<60).map { "\($0)" }.sorted())
        // Invalid ones end as INVALID_ARGUMENT.
        #expect(results.suffix(6).allSatisfy { $0.outcome.error?.code == .invalidArgument })

        var arrivals: [String: [SendAttemptRecord]] = [:]
        for attempt in harness.emulator.sendAttempts() {
            arrivals[attempt.message?["data"]?["n"]?.stringValue ?? "?", default: []].append(attempt)
        }
        let statuses = arrivals.values.flatMap { $0.map(\.status) }
        // The faults really happened (seeded, so this is the same every run).
        #expect(statuses.contains(429) && statuses.contains(503))
        for (number, attempts) in arrivals {
            for (earlier, later) in zip(attempts, attempts.dropFirst()) {
                // No permanent error is ever retried…
                #expect(earlier.status != 400, "message \(number) was retried after INVALID_ARGUMENT")
                // …and Retry-After (1 s) is never undercut, measured where the requests arrived.
                if earlier.status == 429 {
                    #expect(later.receivedAt - earlier.receivedAt >= .seconds(1), "message \(number) retried too soon after 429")
                }
            }
            #expect(attempts.last?.status == (Int(number)! < 60 ? 200 : 400))
        }
    }

    @Test func theSenderReportsEachAttemptItMade() throws {
        let harness = try EmulatorHarness { $0.faults = FaultInjection(unavailable: 1, unavailableRetryAfter: 0, seed: 5) }
        let policy = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(10), maxDelay: .milliseconds(20))
        let (sender, _) = try harness.sender(policy: policy)
        let result = sender.sendWithRetries(["topic": "news"])
        #expect(result.attempts.count == 3)
        #expect(result.outcome.error?.code == .unavailable)
        #expect(result.outcome.error?.isRetryable == true)
        #expect(harness.emulator.sendAttempts().count == 3)
    }
}
