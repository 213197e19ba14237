import FCMEmulator
import Foundation
import HeraldJSON
import HeraldSync
import HeraldTestSupport
import Testing

/// Requests doing short database work have threads of their own: test sends waiting on a slow FCM
/// hold every other handler, and reads still answer at once.
@Suite(.serialized) final class HandlerPoolsTests {
    @Test func testSendsWaitingOnASlowFCMDoNotHoldUpReads() async throws {
        let emulator = try EmulatorSink(faults: FaultInjection(slow: 1, slowDelay: .seconds(15)))
        var environment = emulator.environment
        environment["HERALD_SCHEDULER"] = "false"
        environment["HERALD_HANDLER_THREADS"] = "2"
        environment["HERALD_QUICK_HANDLER_THREADS"] = "2"
        let herald = try TestHerald(environment: environment)
        let created = try await herald.request("POST", "/api/v1/campaigns", json: [
            "name": "Slow FCM", "notification": ["title": "Hello", "body": "World"], "topics": ["news"],
        ])
        let id = try #require(created.json?["id"]?.stringValue)

        // Two test sends that FCM answers after 15 s: once FCM has both, both slow handlers wait.
        let finished = Locked(0)
        let sends = (0..<2).map { index in
            Task {
                defer { finished.withLock { $0 += 1 } }
                return try await herald.request("POST", "/api/v1/campaigns/\(id)/test", json: ["tokens": [.string("token-\(index)")]])
            }
        }
        try #require(try await eventually(timeout: waitingLimit) { emulator.emulator.sendAttempts().count >= 2 })
        // A read is answered while the sends still wait: the order is the test, not a time that a
        // busy machine could stretch (the read would otherwise wait the 15 s for a handler).
        #expect(try await herald.request("GET", "/api/v1/campaigns/\(id)").status == 200)
        #expect(finished.withLock { $0 } == 0, "the read was answered only after a test send finished")
        for send in sends { #expect(try await send.value.status == 200) }
    }
}
