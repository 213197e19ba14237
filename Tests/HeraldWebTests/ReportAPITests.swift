import HeraldTestSupport
import FCMEmulator
import Foundation
import HeraldCore
import HeraldJSON
import Testing

/// `GET /api/v1/campaigns/{id}/report`: what the report page shows, as JSON or CSV, from the one
/// `CampaignService.report`, with requests and people told apart and one "not enough data" rule.
@Suite(.serialized) final class ReportAPITests {
    @Test(.timeLimit(.minutes(5)))
    func theReportCountsRequestsAndEventsPerVariantWithOneRuleAndAnHourlyTrend() async throws {
        let sink = try EmulatorSink()
        let herald = try TestHerald(environment: sink.environment)
        let created = try await herald.request("POST", "/api/v1/campaigns", json: [
            "name": "AB report", "notification": ["title": "Hi"], "topics": ["news"],
            "variants": [["key": "A", "weight": 50], ["key": "B", "weight": 50, "notification": ["title": "Hello"]]],
        ])
        let id = try #require(created.json?["id"]?.stringValue)
        #expect(try await herald.request("POST", "/api/v1/campaigns/\(id)/schedule", headers: ["If-Match": "\"1\""]).status == 200)
        #expect(try await eventually(timeout: waitingLimit) {
            try await herald.request("GET", "/api/v1/campaigns/\(id)").json?["status"] == "sent"
        })
        var events: [JSON] = (0..<120).map { ["id": .string("o-\($0)"), "campaign_id": .string(id), "variant": "B", "type": "open"] }
        events += (0..<30).map { ["id": .string("c-\($0)"), "campaign_id": .string(id), "variant": "B", "type": "conversion"] }
        events += (0..<5).map { ["id": .string("a-\($0)"), "campaign_id": .string(id), "variant": "A", "type": "open"] }
        #expect(try await herald.request("POST", "/api/v1/events", json: ["events": .array(events)]).status == 200)

        let response = try await herald.request("GET", "/api/v1/campaigns/\(id)/report")
        #expect(response.status == 200)
        let report = try #require(response.json)
        let variants = try #require(report["variants"]?.arrayValue)
        #expect(variants.map { $0["key"] } == ["A", "B"])
        // Each variant's buckets take several requests (five topics per condition): as many as the runs say.
        let runs = try #require(try await herald.request("GET", "/api/v1/campaigns/\(id)/runs").json?["items"]?.arrayValue?.first)
        let sentA = try #require(runs["variants"]?["A"]?["sent"]?.intValue), sentB = try #require(runs["variants"]?["B"]?["sent"]?.intValue)
        #expect(variants[0]["requests"]?["sent"]?.intValue == sentA && variants[1]["requests"]?["sent"]?.intValue == sentB)
        #expect(variants.allSatisfy { $0["requests"]?["failed"] == 0 && $0["requests"]?["failure_rate"] == 0 })
        #expect(variants[1]["events"]?["opens"] == 120 && variants[1]["events"]?["conversions"] == 30)
        #expect(variants[1]["events"]?["conversion_rate"] == 0.25)
        #expect(variants[0]["comparison"] == .null && variants[1]["comparison"]?["difference"] != nil)
        // A has 5 opens: below the one rule, whatever B's numbers say.
        #expect(report["verdict"]?["result"] == "not_enough_data")
        #expect(report["verdict"]?["sentence"]?.stringValue == "Not enough data yet: \(ABStatistics.rule()).")
        let hours = try #require(report["hours"]?.arrayValue)
        #expect(!hours.isEmpty)
        #expect(hours.reduce(0) { $0 + ($1["requests_sent"]?.intValue ?? 0) } == sentA + sentB)
        #expect(hours.reduce(0) { $0 + ($1["opens"]?.intValue ?? 0) } == 125)
        #expect(hours.last?["start"]?.stringValue?.hasSuffix(":00:00Z") == true)

        let csv = try await herald.request("GET", "/api/v1/campaigns/\(id)/report?format=csv")
        #expect(csv.status == 200)
        #expect(csv.header("Content-Type") == "text/csv; charset=utf-8")
        let lines = String(decoding: csv.data, as: UTF8.self).split(separator: "\r\n").map(String.init)
        #expect(lines.first == "section,variant,hour,requests_sent,requests_failed,opens,conversions,conversion_rate,difference_vs_baseline,confidence")
        #expect(lines.contains { $0.hasPrefix("total,B,,\(sentB),0,120,30,0.2500,") })
        #expect(lines.contains { $0.hasPrefix("hour,,") })
        let accepted = try await herald.request("GET", "/api/v1/campaigns/\(id)/report", headers: ["Accept": "text/csv"])
        #expect(accepted.data == csv.data)
        let bad = try await herald.request("GET", "/api/v1/campaigns/\(id)/report?format=xml")
        #expect(bad.status == 400)
        #expect(bad.json?["errors"]?.arrayValue?.first?["path"] == "format")
        let missing = try await herald.request("GET", "/api/v1/campaigns/00000000-0000-4000-8000-000000000000/report")
        #expect(missing.status == 404)
    }
}

/// The report page renders the same report: the same rule once in the verdict and once in the
/// explanation, a trend by hour and the CSV download.
@Suite(.serialized) final class ReportPageTests {
    let browser: PagesBrowser
    var herald: TestHerald { browser.harness.herald }

    init() throws { browser = try PagesBrowser(role: .viewer) }

    @Test func thePageSaysOneRuleShowsTheTrendAndOffersTheCSV() async throws {
        let created = try await herald.request("POST", "/api/v1/campaigns", json: [
            "name": "AB page", "notification": ["title": "Hi"], "topics": ["news"],
            "variants": [["key": "A", "weight": 50], ["key": "B", "weight": 50, "notification": ["title": "Hello"]]],
        ])
        let id = try #require(created.json?["id"]?.stringValue)
        _ = try await herald.request("POST", "/api/v1/events", json: ["id": "p-1", "campaign_id": .string(id), "variant": "A", "type": "open"])
        let page = browser.get("/campaigns/\(id)/report").text
        #expect(page.components(separatedBy: ABStatistics.rule()).count - 1 == 2)
        #expect(!page.contains("recipients"))
        #expect(page.contains("People who opened") && page.contains("Requests sent"))
        #expect(page.contains("By hour (UTC)"))
        #expect(page.contains("href=\"/campaigns/\(id)/report.csv\""))
        let csv = browser.get("/campaigns/\(id)/report.csv")
        #expect(csv.status == 200)
        #expect(csv.text.hasPrefix("section,variant,hour,"))
        #expect(csv.text.contains("total,A,,0,0,1,0,0.0000,"))
    }
}
