import HeraldTestSupport
import Foundation
import HeraldJSON
import Testing

/// A campaign scheduled for a moment goes out at that moment: the scheduler sleeps until the
/// due time it learnt by NOTIFY, not until its next poll.
@Suite struct SchedulingLatenessTests {
    @Test(.timeLimit(.minutes(5)))
    func aScheduledCampaignsFirstRequestLeavesWithinOneSecondOfItsTime() async throws {
        let sink = try EmulatorSink()
        // A minute between polls: only the notification can bring the scheduler round in time.
        let herald = try TestHerald(environment: sink.environment.merging(["HERALD_SCHEDULER_POLL_SECONDS": "60"]) { _, new in new })
        #expect(try await herald.engineLooksAgain())  // the scheduler has looked, found nothing, and sleeps

        // Far enough ahead that creating and scheduling finish first on a busy machine.
        let due = Date().addingTimeInterval(8).rounded()
        let created = try await herald.request("POST", "/api/v1/campaigns", json: campaignJSON(
            name: "On the dot", topics: ["news"], schedule: ["kind": "once", "at": .string(utcLocal(due)), "time_zone": "UTC"]))
        let id = try #require(created.json?["id"]?.stringValue)
        #expect(try await herald.request("POST", "/api/v1/campaigns/\(id)/schedule", headers: ["If-Match": "\"1\""]).status == 200)

        #expect(try await eventually(timeout: waitingLimit) { !sink.emulator.messages().isEmpty })
        let received = try #require(sink.emulator.messages().first)
        let lateness = received.receivedAt.seconds - due.timeIntervalSince1970
        print("lateness: first request received \(String(format: "%.3f", lateness)) s after its due time (poll interval 60 s)")
        #expect(lateness >= -0.01)
        #expect(lateness < 1)

        let metrics = String(decoding: try await herald.request("GET", "/metrics").data, as: UTF8.self)
        let lines = metrics.split(separator: "\n").map(String.init)
        #expect(lines.contains("herald_scheduler_lateness_seconds_bucket{le=\"1\"} 1"), "\(lines.filter { $0.contains("lateness") })")
        #expect(lines.contains("herald_scheduler_lateness_seconds_count 1"))
    }
}
