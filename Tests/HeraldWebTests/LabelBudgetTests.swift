import FCMEmulator
import Foundation
import HeraldCore
import HeraldHTTP
import HeraldJSON
import HeraldTestSupport
import Testing
@testable import HeraldApp
@testable import HeraldWeb

/// FCM reports at most 100 analytics labels a day. A busy team's day, 30 campaigns of 4 variants
/// each sent with the default labelling, stays within it (every campaign still reported); the
/// review page says the day's budget and warns before a send would pass it; /metrics counts it.
@Suite(.serialized) struct LabelBudgetTests {
    /// Every analytics label in a message, wherever the platform blocks carry one.
    static func labels(in json: JSON) -> Set<String> {
        switch json {
        case .object(let object):
            return object.reduce(into: Set<String>()) { found, member in
                if member.key == "analytics_label", let label = member.value.stringValue { found.insert(label) }
                found.formUnion(labels(in: member.value))
            }
        case .array(let items): return items.reduce(into: Set<String>()) { $0.formUnion(labels(in: $1)) }
        default: return []
        }
    }

    static func campaign(_ name: String, labels: String? = nil) -> JSON {
        var object: JSONObject = ["name": .string(name), "notification": ["title": .string(name), "body": "Today only"], "topics": ["news"],
                                  "variants": .array(["A", "B", "C", "D"].map { ["key": .string($0), "weight": 1] })]
        if let labels { object["options"] = ["labels": .string(labels)] }
        return .object(object)
    }

    @Test(.timeLimit(.minutes(5)))
    func aDayOf30CampaignsOf4VariantsStaysWithinFCMsHundredLabels() async throws {
        let sink = try EmulatorSink()
        let browser = try PagesBrowser(role: .admin, environment: sink.environment)
        let herald = browser.harness.herald
        var reviews: [String] = []
        for index in 0..<30 {
            let id = try #require(try await herald.request("POST", "/api/v1/campaigns", json: Self.campaign("Flash \(index)")).json?["id"]?.stringValue)
            reviews.append(browser.get("/campaigns/\(id)/review").text)
            #expect(try await herald.request("POST", "/api/v1/campaigns/\(id)/schedule", headers: ["If-Match": "\"1\""]).status == 200)
            // One after the other, as a day's campaigns go out: each run starts before the next is reviewed.
            #expect(try await eventually(timeout: waitingLimit) {
                try await herald.request("GET", "/api/v1/campaigns/\(id)").json?["status"]?.stringValue == "sent"
            })
        }
        var byCampaign: [String: Set<String>] = [:]
        for message in sink.emulator.messages() {
            let name = message.message["notification"]?["title"]?.stringValue ?? ""
            byCampaign[name, default: []].formUnion(Self.labels(in: message.message))
        }
        let all = byCampaign.values.reduce(into: Set<String>()) { $0.formUnion($1) }
        #expect(all.count <= 100, "\(all.count) distinct labels in a day")
        // A label per variant for the first 20 (80 labels), then one per campaign: every campaign is still reported.
        #expect(all.count == 90)
        #expect((0..<20).allSatisfy { byCampaign["Flash \($0)"]?.count == 4 })
        #expect((20..<30).allSatisfy { byCampaign["Flash \($0)"]?.count == 1 })
        #expect(reviews[0].contains("FCM&#39;s delivery reports: 0 of 100 labels used today (UTC).") || reviews[0].contains("FCM's delivery reports: 0 of 100 labels used today (UTC)."),
                "\(reviews[0].split(separator: "\n").filter { $0.contains("label-budget") })")
        #expect(reviews[0].contains("it labels each variant (4 new labels)"))
        #expect(reviews[20].contains("80 of 100 labels used today") && reviews[20].contains("it gets one label for the campaign"))

        // Seven more campaigns of one label each: 97 used. A campaign that insists on a label per
        // variant is warned before it passes the 100th; automatic labelling would not pass it.
        for index in 0..<7 {
            let id = try #require(try await herald.request("POST", "/api/v1/campaigns", json: Self.campaign("Single \(index)", labels: "per_campaign")).json?["id"]?.stringValue)
            #expect(try await herald.request("POST", "/api/v1/campaigns/\(id)/schedule", headers: ["If-Match": "\"1\""]).status == 200)
            #expect(try await eventually(timeout: waitingLimit) {
                try await herald.request("GET", "/api/v1/campaigns/\(id)").json?["status"]?.stringValue == "sent"
            })
        }
        let insisting = try #require(try await herald.request("POST", "/api/v1/campaigns", json: Self.campaign("Insisting", labels: "per_variant")).json?["id"]?.stringValue)
        let warned = browser.get("/campaigns/\(insisting)/review").text
        #expect(warned.contains("97 of 100 labels used today") && warned.contains("it would pass FCM"), "\(warned.split(separator: "\n").filter { $0.contains("label") })")
        let automatic = try #require(try await herald.request("POST", "/api/v1/campaigns", json: Self.campaign("Automatic")).json?["id"]?.stringValue)
        let calm = browser.get("/campaigns/\(automatic)/review").text
        #expect(calm.contains("it gets one label for the campaign") && !calm.contains("it would pass FCM"))
        // /metrics says the day's count, as the scheduler last read it.
        #expect(try await eventually(timeout: waitingLimit) {
            let metrics = String(decoding: try await herald.request("GET", "/metrics").data, as: UTF8.self)
            return metrics.contains("herald_fcm_labels_today 97") && metrics.contains("herald_fcm_labels_daily_limit 100")
        })
        print("labels: 30 campaigns × 4 variants with automatic labelling sent \(all.count) distinct labels (FCM reports 100 a day); "
              + "20 labelled per variant, 10 per campaign")
    }

    /// The budget counts every label FCM sees, whatever sent it (at Herald's 100, FCM had seen
    /// 120): a campaign without variants, a one-call send of it, an inline one-call send (inline
    /// sends share one label) and a test message (its own label) are all in the day's count, and
    /// /metrics says the same number.
    @Test(.timeLimit(.minutes(3)))
    func everyLabelFCMSeesIsCountedWhateverSentIt() async throws {
        let sink = try EmulatorSink()
        let herald = try TestHerald(environment: sink.environment)
        let tokens = (0..<3).map { "label-\($0):APA91b" + String(repeating: "l", count: 120) }
        for token in tokens { #expect(try await herald.request("PUT", "/api/v1/devices/\(token)", json: ["platform": "android"]).status == 201) }
        let created = try await herald.request("POST", "/api/v1/campaigns", json: ["name": "Plain", "notification": ["title": "Plain"],
                                                                                  "tokens": .array(tokens.map(JSON.string))])
        let id = try #require(created.json?["id"]?.stringValue)
        #expect(try await herald.request("POST", "/api/v1/campaigns/\(id)/schedule", headers: ["If-Match": "\"1\""]).status == 200)
        #expect(try await eventually(timeout: waitingLimit) {
            try await herald.request("GET", "/api/v1/campaigns/\(id)").json?["status"]?.stringValue == "sent"
        })
        let key = try herald.server.application.database.pool.withConnection { connection in
            try APIKeyStore().create(name: "orders", role: .publisher, scope: .sends, createdBy: "test", on: connection).key
        }
        var sends: [String] = []
        let bodies: [JSON] = [["campaign": .string(id), "to": [["token": .string(tokens[0])]]],
                              ["message": ["notification": ["title": "Receipt"]], "to": [["token": .string(tokens[1])]]],
                              ["message": ["notification": ["title": "Receipt"]], "to": [["token": .string(tokens[2])]]]]
        for (index, body) in bodies.enumerated() {
            let send = try await herald.request("POST", "/api/v1/sends", json: body,
                                                headers: ["Authorization": "Bearer \(key)", "Idempotency-Key": "label-\(index)"])
            sends.append(try #require(send.json?["id"]?.stringValue, "\(send.json as Any)"))
        }
        for send in sends {
            #expect(try await eventually(timeout: waitingLimit) {
                try await herald.request("GET", "/api/v1/sends/\(send)", headers: ["Authorization": "Bearer \(key)"]).json?["status"]?.stringValue == "sent"
            })
        }
        #expect(try await herald.request("POST", "/api/v1/campaigns/\(id)/test", json: ["tokens": .array([.string(tokens[0])])]).status == 200)

        let seen = sink.emulator.messages().reduce(into: Set<String>()) { $0.formUnion(Self.labels(in: $1.message)) }
        let counted = Set(try herald.server.application.database.pool.withConnection { connection in
            try connection.query("SELECT label FROM label_days WHERE day = (now() AT TIME ZONE 'UTC')::date").map { try $0.decode(String.self, at: 0) }
        })
        #expect(seen == counted, "FCM saw \(seen.sorted()), Herald counted \(counted.sorted())")
        #expect(seen.contains(SendService.inlineLabel) && seen.contains(TestSend.analyticsLabel(campaignID: id)))
        #expect(seen.count == 3, "\(seen.sorted())")  // the campaign's (its sends' too), the inline sends' one, the test's
        #expect(try await eventually(timeout: waitingLimit) {
            String(decoding: try await herald.request("GET", "/metrics").data, as: UTF8.self).contains("herald_fcm_labels_today 3")
        })
    }
}
