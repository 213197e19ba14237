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

        // Far enough ahead that creating and scheduling finish first on a busy machine; on one so
        // busy that the moment passed meanwhile (the schedule is refused as past, 422), again
        // further ahead: the lateness is measured from a moment that was still to come.
        var due = Date()
        var scheduled = false
        for ahead in [8.0, 30.0, 90.0] where !scheduled {
            due = Date().addingTimeInterval(ahead).rounded()
            let created = try await herald.request("POST", "/api/v1/campaigns", json: campaignJSON(
                name: "On the dot", topics: ["news"], schedule: ["kind": "once", "at": .string(utcLocal(due)), "time_zone": "UTC"]))
            let id = try #require(created.json?["id"]?.stringValue)
            let answer = try await herald.request("POST", "/api/v1/campaigns/\(id)/schedule", headers: ["If-Match": "\"1\""])
            scheduled = answer.status == 200
            if !scheduled {
                #expect(Date() > due, "refused while its moment was still ahead: \(answer.status) \(answer.json ?? .null)")
                _ = try await herald.request("DELETE", "/api/v1/campaigns/\(id)", headers: ["If-Match": "\"1\""])
            }
        }
        #expect(scheduled)

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
