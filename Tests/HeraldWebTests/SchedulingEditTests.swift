import HeraldTestSupport
import Foundation
import HeraldJSON
import Testing

/// Editing a scheduled campaign re-arms it at its new time, and a new time already past is
/// refused (422) with the campaign left exactly as it was, still due at its old time.
@Suite struct SchedulingEditTests {
    @Test func aScheduledCampaignCannotBeMovedIntoThePast() async throws {
        let herald = try TestHerald()
        // Half past a minute: the contract writes a time whose seconds are :00 without them.
        let tomorrow = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 / 60).rounded(.down) * 60 + 86_400 + 30)
        let future = campaignJSON(name: "Later", topics: ["news"],
                                  schedule: ["kind": "once", "at": .string(utcLocal(tomorrow)), "time_zone": "UTC"])
        let created = try await herald.request("POST", "/api/v1/campaigns", json: future)
        let id = try #require(created.json?["id"]?.stringValue)
        #expect(try await herald.request("POST", "/api/v1/campaigns/\(id)/schedule", headers: ["If-Match": "\"1\""]).status == 200)

        let past = campaignJSON(name: "Later", topics: ["news"],
                                schedule: ["kind": "once", "at": .string(utcLocal(Date().addingTimeInterval(-3600))), "time_zone": "UTC"])
        // Scheduling leaves the version (it counts content only): the ETag read at creation still holds.
        let refused = try await herald.request("PUT", "/api/v1/campaigns/\(id)", json: past, headers: ["If-Match": "\"1\""])
        #expect(refused.status == 422)
        #expect(refused.json?["errors"]?.arrayValue?.first?["path"] == "schedule.at")
        let unchanged = try await herald.request("GET", "/api/v1/campaigns/\(id)")
        #expect(unchanged.json?["version"] == 1)
        #expect(unchanged.json?["status"] == "scheduled")
        #expect(unchanged.json?["schedule"]?["at"]?.stringValue == utcLocal(tomorrow))

        let later = campaignJSON(name: "Later still", topics: ["news"],
                                 schedule: ["kind": "once", "at": .string(utcLocal(tomorrow.addingTimeInterval(3600))), "time_zone": "UTC"])
        let moved = try await herald.request("PUT", "/api/v1/campaigns/\(id)", json: later, headers: ["If-Match": "\"1\""])
        #expect(moved.status == 200)
        #expect(moved.json?["status"] == "scheduled")
        #expect(moved.json?["version"] == 2)
    }
}
