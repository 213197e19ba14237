import FCMEmulator
import Foundation
import HeraldCore
import HeraldJSON
import HeraldPostgres
import HeraldTestSupport
import Testing
@testable import HeraldApp

/// The automatic winner end to end: an A/B test with a holdout is sent through the emulator, the
/// apps report opens, the deadline passes, and the scheduler decides, records and rolls out.
@Suite(.serialized) struct WinnerDeciderTests {
    let actor = Actor(name: "marketer@example.com", address: "127.0.0.1")

    /// Sends the test, then reports `opens` per variant and moves the deadline into the past.
    func sentTest(_ harness: TestApplication, engine: DeliveryEngine, sink: EmulatorSink, fallback: String, opens: [String: Int]) async throws -> CampaignRecord {
        let campaigns = harness.app.campaigns
        var json = campaignJSON(name: "Spring AB", topics: ["news"]).objectValue!
        json["variants"] = [["key": "A", "weight": 1, "notification": ["title": "Spring A"]], ["key": "B", "weight": 1, "notification": ["title": "Spring B"]]]
        json["holdout_percent"] = 20
        json["auto_winner"] = ["after_minutes": 60, "metric": "opens", "confidence": 99, "fallback": .string(fallback)]
        let record = try campaigns.create(try CampaignService.validated(.object(json)), by: actor, now: Date())
        _ = try campaigns.publishNow(record.id, expectedVersion: record.version, by: actor, now: Date())
        #expect(try await eventually(timeout: waitingLimit) { try campaigns.get(record.id).status == .sent })
        let received = sink.emulator.messages().count
        for (variant, count) in opens {
            try harness.execute("""
                INSERT INTO events (id, campaign_id, variant, type)
                SELECT '\(record.id)-\(variant)-' || n, '\(record.id)', '\(variant)', 'open' FROM generate_series(1, \(count)) AS n
                """)
        }
        // No decision before the deadline.
        #expect(try await engine.looksAgain(waking: harness.databaseURL))
        #expect(try harness.count("SELECT count(*) FROM winner_decisions WHERE campaign_id = '\(record.id)'") == 0)
        #expect(sink.emulator.messages().count == received)
        try harness.execute("UPDATE runs SET occurrence = occurrence - interval '61 minutes' WHERE campaign_id = '\(record.id)'")
        return record
    }

    func auditActions(_ harness: TestApplication, _ id: CampaignID) throws -> [String] {
        try harness.pool.withConnection { connection in
            try connection.query("SELECT action FROM audit_log WHERE object_id = \(id.description) ORDER BY id").map { try $0.decode(String.self, at: 0) }
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func whenBBeatsAAt99PercentTheSchedulerSendsBToTheRestAndRecordsWhy() async throws {
        let harness = try TestApplication()
        let sink = try EmulatorSink()
        let engine = try DeliveryOutboxTests.startEngine(url: harness.databaseURL, sink: sink)
        defer { engine.stop() }
        let record = try await sentTest(harness, engine: engine, sink: sink, fallback: "baseline", opens: ["A": 100, "B": 200])
        #expect(try await eventually(timeout: waitingLimit) {
            try harness.count("SELECT count(*) FROM runs WHERE rollout_variant = 'B' AND status = 'sent'") == 1
        })
        // B went to the holdout's buckets: the emulator got B's title in a request of the rollout.
        let rolledOut = try harness.count("""
            SELECT count(*) FROM deliveries d JOIN runs r ON r.id = d.run_id
            WHERE r.rollout_variant = 'B' AND d.status = 'sent' AND d.body LIKE '%Spring B%' AND d.body NOT LIKE '%Spring A%'
            """)
        #expect(rolledOut >= 1)
        // Each request reached FCM once: as many of B's as the test and the rollout planned.
        #expect(sink.emulator.messages().filter { $0.message["notification"]?["title"] == "Spring B" }.count
                == (try harness.count("SELECT count(*) FROM deliveries WHERE status = 'sent' AND body LIKE '%Spring B%'")))
        let report = try harness.app.campaigns.report(record.id)
        let decided = try #require(report.winnerDecision?.decision)
        #expect(decided.variantToSend == "B")
        #expect(decided.won)
        #expect(decided.figures.map(\.successes) == [100, 200])
        #expect(decided.sentence.contains("99% confidence"))
        let actions = try auditActions(harness, record.id)
        #expect(actions.suffix(2) == ["campaign.winner_decided", "campaign.winner_sent"])
        // Decided once: nothing more happens on later passes.
        #expect(try await engine.looksAgain(waking: harness.databaseURL))
        #expect(try harness.count("SELECT count(*) FROM runs WHERE rollout_variant IS NOT NULL") == 1)
    }

    @Test(.timeLimit(.minutes(5)))
    func aTieSendsTheConfiguredFallbackAndNothingIsRecordedAsAWin() async throws {
        let harness = try TestApplication()
        let sink = try EmulatorSink()
        let engine = try DeliveryOutboxTests.startEngine(url: harness.databaseURL, sink: sink)
        defer { engine.stop() }
        let none = try await sentTest(harness, engine: engine, sink: sink, fallback: "none", opens: ["A": 150, "B": 155])
        #expect(try await eventually(timeout: waitingLimit) { try harness.count("SELECT count(*) FROM winner_decisions") == 1 })
        let report = try harness.app.campaigns.report(none.id)
        #expect(report.winnerDecision != nil && report.winnerDecision?.decision.variantToSend == nil)
        #expect(report.winnerDecision?.decision.won == false)
        #expect(try harness.count("SELECT count(*) FROM runs WHERE rollout_variant IS NOT NULL") == 0)
        #expect(try auditActions(harness, none.id).last == "campaign.winner_decided")

        let baseline = try await sentTest(harness, engine: engine, sink: sink, fallback: "baseline", opens: ["A": 150, "B": 155])
        #expect(try await eventually(timeout: waitingLimit) {
            try harness.count("SELECT count(*) FROM runs WHERE rollout_variant = 'A' AND campaign_id = '\(baseline.id)'") == 1
        })
        let decision = try harness.app.campaigns.report(baseline.id).winnerDecision?.decision
        #expect(decision?.variantToSend == "A" && decision?.won == false)
    }
}
