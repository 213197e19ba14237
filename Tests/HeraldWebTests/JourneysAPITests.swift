import Foundation
import HeraldJSON
import Testing

/// `/api/v1/journeys` over HTTP: a journey written, read back and saved unchanged, refused with
/// every problem at its path, published, paused, resumed and stopped by its status; app events
/// posted to `/api/v1/events` beside opens, checked field by field.
@Suite(.serialized) final class JourneysAPITests {
    let herald: TestHerald

    init() throws {
        herald = try TestHerald(environment: ["HERALD_SCHEDULER": "false"])
    }

    static let journey: JSON = [
        "name": "Cart reminder",
        "entry": ["event": "cart_abandoned", "segment": ["all": [["field": "platform", "equals": "android"]]], "frequency": "once_per_days", "days": 7],
        "goal": ["event": "purchased"],
        "holdout_percent": 5,
        "steps": [
            ["name": "give them a moment", "type": "wait", "minutes": 30],
            ["name": "nudge", "type": "send", "message": ["notification": ["title": "Your cart misses you", "body": "{{item | default: \"It\"}} is still there"],
                                                          "delivery": ["category": "reminders"]]],
            ["name": "morning", "type": "wait", "until_time": "10:00"],
            ["name": "came back?", "type": "branch", "if": ["event": "app_opened"], "then": "done", "else": "last call"],
            ["name": "last call", "type": "send", "message": ["notification": ["title": "Last call", "body": "Your cart empties tonight"]]],
            ["name": "done", "type": "exit"],
        ],
    ]

    @Test func aJourneyIsReadBackAndSavedUnchangedAndEditedOnlyByTheVersionRead() async throws {
        let created = try await herald.request("POST", "/api/v1/journeys", json: Self.journey)
        #expect(created.status == 201, "\(created.json ?? .null)")
        let id = try #require(created.json?["id"]?.stringValue)
        #expect(created.header("Location") == "/api/v1/journeys/\(id)" && created.header("ETag") == "\"1\"")
        #expect(created.json?["status"] == "draft" && created.json?["published_version"] == .null)
        let read = try #require(try await herald.request("GET", "/api/v1/journeys/\(id)").json)
        for key in ["name", "entry", "goal", "holdout_percent", "steps"] { #expect(read[key] == Self.journey[key], "\(key)") }

        // Sent back as read: saved unchanged (a new edit version), and read the same.
        let saved = try await herald.request("PUT", "/api/v1/journeys/\(id)", json: read, headers: ["If-Match": "\"1\""])
        #expect(saved.status == 200 && saved.header("ETag") == "\"2\"")
        let again = try #require(try await herald.request("GET", "/api/v1/journeys/\(id)").json)
        for key in ["name", "entry", "goal", "holdout_percent", "steps"] { #expect(again[key] == read[key], "\(key)") }
        // An edit of the version read before is refused; without If-Match, 428.
        var renamed = read.objectValue ?? [:]
        renamed["name"] = "Renamed"
        #expect(try await herald.request("PUT", "/api/v1/journeys/\(id)", json: .object(renamed), headers: ["If-Match": "\"1\""]).status == 412)
        #expect(try await herald.request("PUT", "/api/v1/journeys/\(id)", json: .object(renamed)).status == 428)

        let list = try await herald.request("GET", "/api/v1/journeys?limit=1")
        #expect(list.json?["items"]?.arrayValue?.count == 1 && list.json?["items"]?.arrayValue?.first?["id"]?.stringValue == id)
    }

    @Test func aBrokenJourneyIsRefusedWithEveryProblemAtItsPathAndNothingSaved() async throws {
        var broken = Self.journey.objectValue ?? [:]
        broken["goal"] = ["event": "cart_abandoned"]
        broken["steps"] = [
            ["name": "nudge", "type": "send", "message": ["notification": ["title": "Hi {{first_name}}"], "schedule": ["kind": "now"]]],
            ["name": "check", "type": "branch", "if": ["converted": true], "then": "nudge", "else": "nowhere"],
        ]
        let refused = try await herald.request("POST", "/api/v1/journeys", json: .object(broken))
        #expect(refused.status == 422)
        #expect(refused.json?["title"] == "The journey is not valid")
        let paths = Set(refused.json?["errors"]?.arrayValue?.compactMap { $0["path"]?.stringValue } ?? [])
        for path in ["goal.event", "steps[0].message.schedule", "steps[0].message.notification.title", "steps[1].then", "steps[1].else"] {
            #expect(paths.contains(path), "\(path) in \(paths.sorted())")
        }
        #expect(try await herald.request("GET", "/api/v1/journeys").json?["items"]?.arrayValue?.isEmpty == true)
    }

    @Test func publishingPausingResumingAndStoppingFollowTheJourneysStatus() async throws {
        let id = try #require(try await herald.request("POST", "/api/v1/journeys", json: Self.journey).json?["id"]?.stringValue)
        #expect(try await herald.request("POST", "/api/v1/journeys/\(id)/pause").json?["code"] == "journey_draft")
        let published = try await herald.request("POST", "/api/v1/journeys/\(id)/publish", json: ["move_devices": true])
        #expect(published.status == 200 && published.json?["status"] == "live" && published.json?["published_version"] == 1, "\(published.json ?? .null)")
        #expect(published.json?["moved_devices"] == 0)
        #expect(try await herald.request("POST", "/api/v1/journeys/\(id)/publish", json: ["move": true]).status == 422)
        #expect(try await herald.request("POST", "/api/v1/journeys/\(id)/publish", headers: ["If-Match": "\"7\""]).status == 412)
        // The send steps' campaigns are the journey's, not the campaign list's.
        #expect(try await herald.request("GET", "/api/v1/campaigns").json?["items"]?.arrayValue?.isEmpty == true)

        #expect(try await herald.request("POST", "/api/v1/journeys/\(id)/pause").json?["status"] == "paused")
        #expect(try await herald.request("POST", "/api/v1/journeys/\(id)/publish").json?["status"] == "paused")
        #expect(try await herald.request("POST", "/api/v1/journeys/\(id)/resume").json?["status"] == "live")
        #expect(try await herald.request("DELETE", "/api/v1/journeys/\(id)").json?["code"] == "journey_live")
        #expect(try await herald.request("POST", "/api/v1/journeys/\(id)/stop").json?["status"] == "stopped")
        #expect(try await herald.request("POST", "/api/v1/journeys/\(id)/resume").status == 409)

        let report = try #require(try await herald.request("GET", "/api/v1/journeys/\(id)/report").json)
        // No entrant, no holdout: nothing to compare the goal with.
        #expect(report["published_version"] == 2 && report["entered"] == 0 && report["goal_comparison"] == .null)
        #expect(try await herald.request("DELETE", "/api/v1/journeys/\(id)").status == 204)
        #expect(try await herald.request("GET", "/api/v1/journeys/\(id)").status == 404)
        #expect(try await herald.request("GET", "/api/v1/journeys/not-a-uuid").status == 404)
    }

    @Test func appEventsAreCheckedFieldByFieldBesideOpensAndRecordedOnce() async throws {
        let bad = try await herald.request("POST", "/api/v1/events", json: ["events": [
            ["id": "e1", "event": "signed up", "device": "tok en", "properties": [1, 2], "time": "yesterday", "extra": true],
            ["id": "e2", "type": "open"],
        ]])
        #expect(bad.status == 422)
        let paths = Set(bad.json?["errors"]?.arrayValue?.compactMap { $0["path"]?.stringValue } ?? [])
        #expect(paths.isSuperset(of: ["events[0].event", "events[0].device", "events[0].properties", "events[0].time", "events[0].extra",
                                      "events[1].device_token"]), "\(paths.sorted())")
        let good: JSON = ["events": [["id": "e1", "event": "signed_up", "device": "device-1", "properties": ["plan": "pro", "seats": 3]],
                                     ["id": "e2", "event": "app_opened", "device": "device-1", "time": "2026-11-27T09:30:00Z"]]]
        let first = try await herald.request("POST", "/api/v1/events", json: good)
        #expect(first.json?["recorded"] == 2 && first.json?["duplicates"] == 0, "\(first.json ?? .null)")
        let second = try await herald.request("POST", "/api/v1/events", json: good)
        #expect(second.json?["recorded"] == 0 && second.json?["duplicates"] == 2)
    }
}
