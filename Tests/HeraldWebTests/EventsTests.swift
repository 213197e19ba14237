import Foundation
import HeraldJSON
import HeraldHTTP
import HeraldTestSupport
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

    /// A warehouse pulls every event as NDJSON, a page at a time after the cursor it kept, in the
    /// order they were recorded, each once.
    @Test(.timeLimit(.minutes(2)))
    func aWarehousePullsEveryEventOnceInOrderAfterItsCursor() async throws {
        let id = try await campaign()
        let batch: [JSON] = (0..<25).map { ["id": .string("w-\($0)"), "campaign_id": .string(id), "variant": $0 % 2 == 0 ? "A" : "B",
                                            "type": $0 % 5 == 0 ? "conversion" : "open", "device_token": .string("device-\($0)")] }
        #expect(try await herald.request("POST", "/api/v1/events", json: ["events": .array(batch)]).json?["recorded"] == 25)
        var pulled: [JSON] = [], cursor: String?, pages = 0, answers: Set<String> = []
        // Pages of 10 until the cursor has passed all 25 (events are held back for their first two seconds).
        let pulledAll = try await eventually(timeout: waitingLimit) {
            let response = try await herald.request("GET", "/api/v1/events?limit=10" + (cursor.map { "&cursor=\($0)" } ?? ""))
            answers.insert("\(response.status) \(response.header("Content-Type") ?? "")")
            let lines = String(decoding: response.data, as: UTF8.self).split(separator: "\n").compactMap { try? JSON.parse(Array($0.utf8)) }
            if !lines.isEmpty { pages += 1 }
            pulled += lines
            cursor = response.header("Herald-Next-Cursor") ?? cursor
            return pulled.count >= 25
        }
        #expect(pulledAll && answers == ["200 application/x-ndjson"], "\(answers)")
        #expect(pulled.compactMap { $0["id"]?.stringValue } == (0..<25).map { "w-\($0)" })
        #expect(pages >= 3)
        #expect(pulled[3]["device_token"]?.stringValue == "device-3" && pulled[5]["type"]?.stringValue == "conversion")
        #expect(pulled.allSatisfy { $0["campaign_id"]?.stringValue == id && $0["occurred_at"]?.stringValue?.hasSuffix("Z") == true })
        // After the last cursor: nothing new. From a time after them: nothing either.
        let after = try await herald.request("GET", "/api/v1/events?cursor=\(cursor ?? "0")")
        #expect(after.data.isEmpty && after.header("Herald-Next-Cursor") == cursor)
        #expect(try await herald.request("GET", "/api/v1/events?since=2099-01-01T00:00:00Z").data.isEmpty)
        let bad = try await herald.request("GET", "/api/v1/events?since=yesterday&limit=0&cursor=x&page=2")
        #expect(bad.status == 400)
        #expect(Set(bad.json?["errors"]?.arrayValue?.compactMap { $0["path"]?.stringValue } ?? []) == ["since", "limit", "cursor", "page"])
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
