import HeraldSync
import Testing

/// The one retry schedule: FCM's full jitter and the webhooks' steady pace are the same doubling.
@Suite struct BackoffTests {
    static let webhooks = Backoff(base: .seconds(10), maximum: .seconds(3600), attempts: 80, jitter: .upToATenthMore)

    @Test func webhookRetriesDoubleUpToAnHourAndStopAfterAboutThreeDays() {
        let ceilings = (1..<80).map(Self.webhooks.ceiling(afterAttempt:))
        #expect(ceilings.prefix(5) == [.seconds(10), .seconds(20), .seconds(40), .seconds(80), .seconds(160)])  // five minutes of retries
        #expect(ceilings[11] == .seconds(3600) && ceilings[78] == .seconds(3600))
        #expect(Self.webhooks.delay(afterAttempt: 80) == nil)
        let days = ceilings.reduce(Duration.zero, +).seconds / 86_400
        #expect(days > 2.9 && days < 3.1, "\(days) days")
        // The jitter spreads a retry by up to a tenth, never shortens it.
        #expect(Self.webhooks.delay(afterAttempt: 1, draw: 0) == .seconds(10) && Self.webhooks.delay(afterAttempt: 1, draw: 1) == .seconds(11))
        for attempt in 1..<80 {
            let wait = Self.webhooks.delay(afterAttempt: attempt)!, ceiling = ceilings[attempt - 1]
            #expect(wait >= ceiling && wait <= ceiling + ceiling / 10, "attempt \(attempt): \(wait)")
        }
    }

    @Test func fullJitterWaitsAnywhereUpToTheCeiling() {
        let fcm = Backoff(base: .seconds(1), maximum: .seconds(60), attempts: 10, jitter: .full)
        #expect([1, 2, 4, 7, 100].map(fcm.ceiling(afterAttempt:)) == [.seconds(1), .seconds(2), .seconds(8), .seconds(60), .seconds(60)])
        let waits = (0..<200).map { _ in fcm.delay(afterAttempt: 3)! }
        #expect(waits.allSatisfy { $0 >= .zero && $0 <= .seconds(4) })
        // Spread over the whole range, not bunched at the ceiling.
        #expect(waits.contains { $0 < .seconds(1) } && waits.contains { $0 > .seconds(3) })
        #expect(fcm.delay(afterAttempt: 10) == nil)
    }
}
