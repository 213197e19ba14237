import Foundation
import HeraldJSON
import HeraldHTTP
import Testing
@testable import HeraldApp
@testable import HeraldWeb

/// `POST /api/v1/events` and the report it feeds.
@Suite(.serialized) final class EventsTests {
    let browser: PagesBrowser
    var herald: TestHerald { browser.harness.herald }

    init() throws { browser = try PagesBrowser(role: .viewer) }

    func campaign() async throws -> String {
        let created = try await herald.request("POST", "/api/v1/campaigns", json: [
            "name": "AB", "notification": ["title": "Hi"], "topics": ["news"],
            "variants": [["key": "A", "weight": 50], ["key": "B", "weight": 50, "notification": ["title": "Hello"]]],
        ])
        return try #require(created.json?["id"]?.stringValue)
    }

    @Test func eventsAreRecordedOnceByTheirId() async throws {
        let id = try await campaign()
        let one: JSON = ["id": "evt-1", "campaign_id": .string(id), "variant": "A", "type": "open"]
        let first = try await herald.request("POST", "/api/v1/events", json: one)
        #expect(first.status == 200)
        #expect(first.json?["recorded"] == 1)
        let retried = try await herald.request("POST", "/api/v1/events", json: one)
        #expect(retried.json?["recorded"] == 0 && retried.json?["duplicates"] == 1)
        var batch: [JSON] = (0..<120).map { ["id": .string("o-\($0)"), "campaign_id": .string(id), "variant": "B", "type": "open"] }
        batch += (0..<60).map { ["id": .string("c-\($0)"), "campaign_id": .string(id), "variant": "B", "type": "conversion",
                                 "occurred_at": "2026-11-22T09:30:00Z"] }
        let many = try await herald.request("POST", "/api/v1/events", json: ["events": .array(batch)])
        #expect(many.json?["recorded"] == 180)
        let report = browser.get("/campaigns/\(id)/report").text
        #expect(report.contains(#"<td data-label="People who opened">120</td><td data-label="People who converted">60</td><td data-label="Conversion rate">50.0%</td>"#))
        #expect(report.contains("Not enough data yet"))
        #expect(report.contains("<svg class=\"chart\""))
    }

    @Test func badEventsAreRefusedWithEveryProblemNamed() async throws {
        let id = try await campaign()
        let response = try await herald.request("POST", "/api/v1/events", json: ["events": [
            ["id": "x", "campaign_id": .string(id), "variant": "A", "type": "click"],
            ["id": "", "campaign_id": "nope", "variant": "A B", "type": "open", "occurred_at": "yesterday", "extra": 1],
        ]])
        #expect(response.status == 422)
        let paths = Set(response.json?["errors"]?.arrayValue?.compactMap { $0["path"]?.stringValue } ?? [])
        #expect(paths == ["events[0].type", "events[1].id", "events[1].campaign_id", "events[1].variant", "events[1].occurred_at", "events[1].extra"])
        let unknown = try await herald.request("POST", "/api/v1/events", json: [
            "id": "y", "campaign_id": "00000000-0000-0000-0000-000000000000", "variant": "A", "type": "open"])
        #expect(unknown.status == 422)
        #expect(unknown.json?["errors"]?.arrayValue?.first?["code"] == "unknown_campaign")
    }
}
