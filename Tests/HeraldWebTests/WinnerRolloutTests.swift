import HeraldTestSupport
import FCMEmulator
import Foundation
import HeraldJSON
import Testing
@testable import HeraldWeb

/// "Send the winner to the rest": after an A/B test with a holdout has been sent, the chosen
/// variant goes to the holdout's buckets (and only there), once, through the scheduler's workers.
@Suite(.serialized) final class WinnerRolloutTests {
    @Test(.timeLimit(.minutes(5)))
    func theWinnerGoesToTheHoldoutBucketsOnceAndNoDeviceGetsTwoVariants() async throws {
        let sink = try EmulatorSink()
        let herald = try TestHerald(environment: sink.environment)
        let created = try await herald.request("POST", "/api/v1/campaigns", json: [
            "name": "Winter A/B", "notification": ["title": "Winter offer", "body": "15% off"], "topics": ["news"],
            "variants": [["key": "A", "weight": 50], ["key": "B", "weight": 50, "notification": ["title": "Last chance"]]],
            "holdout_percent": 20,
        ])
        let id = try #require(created.json?["id"]?.stringValue)
        func status() async throws -> String? { try await herald.request("GET", "/api/v1/campaigns/\(id)").json?["status"]?.stringValue }
        func sendWinner(_ variant: String) async throws -> TestHerald.Response {
            try await herald.request("POST", "/api/v1/campaigns/\(id)/send-winner", json: ["variant": .string(variant)])
        }

        // Before the test has been sent there is no winner to send.
        #expect(try await sendWinner("B").status == 409)
        #expect(try await herald.request("POST", "/api/v1/campaigns/\(id)/schedule", headers: ["If-Match": "\"1\""]).status == 200)
        #expect(try await eventually(timeout: waitingLimit) { try await status() == "sent" })
        let test = sink.emulator.messages()
        let testBuckets = Set(test.flatMap { Self.buckets(in: $0.message["condition"]?.stringValue ?? "") })

        #expect(try await sendWinner("Z").status == 422)
        let rollout = try await sendWinner("B")
        #expect(rollout.status == 200, "\(String(decoding: rollout.data, as: UTF8.self))")
        #expect(try await eventually(timeout: waitingLimit) { try await status() == "sent" && sink.emulator.messages().count > test.count })
        let sent = sink.emulator.messages().dropFirst(test.count)
        let rolloutBuckets = Set(sent.flatMap { Self.buckets(in: $0.message["condition"]?.stringValue ?? "") })
        // Only the winner's text, only to buckets the test left out: four of twenty (20 %).
        #expect(sent.allSatisfy { $0.message["notification"]?["title"] == "Last chance" })
        #expect(rolloutBuckets.count == 4 && rolloutBuckets.isDisjoint(with: testBuckets))
        #expect(testBuckets.count == 16)

        // Once only, and in the audit log with the variant.
        #expect(try await sendWinner("A").status == 409)
        let runs = try #require(try await herald.request("GET", "/api/v1/campaigns/\(id)/runs").json?["items"]?.arrayValue)
        #expect(runs.count == 2)
        let audit = try await herald.request("GET", "/api/v1/audit")
        let entry = (audit.json?["items"]?.arrayValue ?? []).first { $0["action"] == "campaign.winner_sent" }
        #expect(entry?["details"]?["variant"] == "B")
    }

    @Test(.timeLimit(.minutes(5)))
    func theReportOffersTheWinnerToAPublisherAsksFirstAndThenSaysItWent() async throws {
        let sink = try EmulatorSink()
        let harness = try AccessHarness(environment: sink.environment)
        let herald = harness.herald
        let created = try await herald.request("POST", "/api/v1/campaigns", json: [
            "name": "Spring A/B", "notification": ["title": "Spring"], "topics": ["news"],
            "variants": [["key": "A", "weight": 1], ["key": "B", "weight": 1, "notification": ["title": "Spring sale"]]], "holdout_percent": 10,
        ])
        let id = try #require(created.json?["id"]?.stringValue)
        #expect(try await herald.request("POST", "/api/v1/campaigns/\(id)/schedule", headers: ["If-Match": "\"1\""]).status == 200)
        #expect(try await eventually(timeout: waitingLimit) {
            try await herald.request("GET", "/api/v1/campaigns/\(id)").json?["status"]?.stringValue == "sent"
        })
        let publisher = try harness.session(try harness.user(.publisher))
        let viewer = try harness.session(try harness.user(.viewer))
        func page(_ session: (id: String, csrf: String)) -> String {
            harness.send(.get, "/campaigns/\(id)/report", headers: [("Cookie", "\(Authentication.sessionCookie)=\(session.id)")]).text
        }
        #expect(page(publisher).contains("Send the winner to the rest (10% of the audience"))
        // The list says when it was sent and what went out.
        let list = harness.send(.get, "/campaigns", headers: [("Cookie", "\(Authentication.sessionCookie)=\(viewer.id)")]).text
        #expect(list.contains(">Next run / sent<") && list.contains("Sent ") && list.contains(" UTC</td>"))
        #expect(list.contains("6 requests sent</td>"), "\(list)")
        #expect(!page(viewer).contains("send-winner"))
        // Asked first (no JavaScript: a page), then sent; the report then says which variant went.
        let asked = harness.post("/campaigns/\(id)/send-winner", form: [("csrf_token", publisher.csrf), ("variant", "B")], session: publisher.id)
        #expect(asked.status == 200 && asked.text.contains("Send variant B to the rest?"))
        let testMessages = sink.emulator.messages().count
        #expect(try await herald.engineLooksAgain())
        #expect(sink.emulator.messages().count == testMessages)
        let sent = harness.post("/campaigns/\(id)/send-winner", form: [("csrf_token", publisher.csrf), ("variant", "B"), ("confirmed", "yes")],
                                session: publisher.id)
        #expect(sent.status == 303)
        #expect(try await eventually(timeout: waitingLimit) { sink.emulator.messages().count > testMessages })
        #expect(sink.emulator.messages().dropFirst(testMessages).allSatisfy { $0.message["notification"]?["title"] == "Spring sale" })
        #expect(try await eventually(timeout: waitingLimit) {
            page(publisher).contains("Variant B was sent to the rest of the audience.") && !page(publisher).contains("send-winner")
        })
    }

    /// The audience-bucket topics a condition names.
    static func buckets(in condition: String) -> [String] {
        condition.matches(of: #/'(herald-bucket-\d+)'/#).map { String($0.1) }
    }
}
