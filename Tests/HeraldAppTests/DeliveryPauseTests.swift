import FCMEmulator
import Foundation
import HeraldCore
import HeraldJSON
import HeraldPostgres
import HeraldTestSupport
import Testing
@testable import HeraldApp

/// Pausing a running campaign through the service, with a real engine sending to the emulator:
/// no request is claimed after the pause (the round already claimed completes), other campaigns
/// go on, and resuming sends the rest exactly once.
@Suite(.serialized) struct DeliveryPauseTests {
    let actor = Actor(name: "publisher@example.com", address: "127.0.0.1")

    @Test(.timeLimit(.minutes(2)))
    func pausingStopsNewRequestsWithinOneRoundAndResumingSendsTheRestOnce() async throws {
        let harness = try TestApplication()
        let campaigns = harness.app.campaigns
        let sink = try EmulatorSink()
        let topics = (0..<50).map { "pause-\($0)" }  // ten requests of five topics
        let paused = try campaigns.create(try CampaignService.validated(campaignJSON(name: "Paused midway", topics: topics)), by: actor, now: Date())
        let other = try campaigns.create(try CampaignService.validated(campaignJSON(name: "Goes on", topics: ["other"])), by: actor, now: Date())
        _ = try campaigns.publishNow(paused.id, expectedVersion: paused.version, by: actor, now: Date())
        let connection = try PostgresConnection(url: harness.databaseURL)
        defer { connection.close() }
        #expect(try RunStarter(buckets: AudienceBuckets()).startDueRuns(limit: 10, now: Date(), on: connection).first?.deliveries == 10)
        // A worker's round is under way (claimed, its request on its way to FCM) when the campaign is paused.
        let store = DeliveryStore()
        let round = try store.claim(owner: "worker-in-flight", limit: 32, lease: .seconds(60), on: connection)
        #expect(round.count == 1)
        let running = try campaigns.get(paused.id)
        let pausedRecord = try campaigns.pause(paused.id, expectedVersion: running.version, by: actor)
        #expect(pausedRecord.status == .paused)

        // Workers start: nothing more of the paused campaign is claimed, while another campaign is sent.
        let engine = try DeliveryOutboxTests.startEngine(url: harness.databaseURL, sink: sink)
        defer { engine.stop() }
        _ = try campaigns.publishNow(other.id, expectedVersion: other.version, by: actor, now: Date())
        #expect(try await eventually(timeout: waitingLimit) { try campaigns.get(other.id).status == .sent })
        #expect(try await engine.looksAgain(waking: harness.databaseURL))
        #expect(sink.emulator.sendAttempts().count == 1)  // only the other campaign's request
        // The round that was in flight completes and is recorded, paused or not.
        let answers = try sink.sender().send(batch: round.map(\.body), validateOnly: false, concurrency: 1)
        guard case .sent(let name)? = answers.first else { Issue.record("the round in flight was not sent: \(answers)"); return }
        try store.record([DeliveryStore.Outcome(id: round[0].id, status: .sent, messageName: name)], owner: "worker-in-flight",
                         runIDs: [round[0].runID], on: connection)
        func sent(_ id: CampaignID) throws -> Int {
            try harness.count("SELECT count(*) FROM deliveries WHERE status = 'sent' AND campaign_id = '\(id)'")
        }
        #expect(try sent(paused.id) == 1)
        #expect(try await engine.looksAgain(waking: harness.databaseURL))
        #expect(try sent(paused.id) == 1)
        #expect(try campaigns.get(paused.id).status == .paused)
        #expect(try harness.count("SELECT count(*) FROM deliveries WHERE campaign_id = '\(paused.id)' AND status = 'pending'") == 9)

        // Resuming a campaign that is not paused is refused and says why.
        #expect(throws: AppError.self) { try campaigns.resume(other.id, expectedVersion: other.version, by: actor) }
        let resumed = try campaigns.resume(paused.id, expectedVersion: pausedRecord.version, by: actor)
        #expect(resumed.status == .sending)
        #expect(try await eventually(timeout: waitingLimit) { try campaigns.get(paused.id).status == .sent })
        #expect(try sent(paused.id) == 10)

        // Every request reached FCM exactly once, across the pause.
        let received = sink.receivedCounts()
        #expect(received.count == 11)
        #expect(received.values.allSatisfy { $0 == 1 })
        #expect(try harness.count("SELECT count(*) FROM deliveries WHERE attempts <> 1") == 0)
        let actions = try harness.pool.withConnection { connection in
            try connection.query("SELECT action FROM audit_log WHERE object_id = \(paused.id.description) ORDER BY id").map { try $0.decode(String.self, at: 0) }
        }
        #expect(actions == ["campaign.created", "campaign.published", "campaign.paused", "campaign.resumed"])
    }

    @Test(.timeLimit(.minutes(5)))
    func aPausedScheduledCampaignStartsNoRunUntilResumed() async throws {
        let harness = try TestApplication()
        let campaigns = harness.app.campaigns
        let sink = try EmulatorSink()
        let draft = try campaigns.create(try CampaignService.validated(campaignJSON(name: "Held", topics: ["held"])), by: actor, now: Date())
        let scheduled = try campaigns.schedule(draft.id, expectedVersion: draft.version, by: actor, now: Date().addingTimeInterval(3600))
        let pausedRecord = try campaigns.pause(scheduled.id, expectedVersion: scheduled.version, by: actor)
        #expect(pausedRecord.status == .paused)
        // Due now, but paused: the scheduler leaves it.
        try harness.execute("UPDATE campaigns SET next_run_at = now() - interval '1 second' WHERE id = '\(draft.id)'")
        let engine = try DeliveryOutboxTests.startEngine(url: harness.databaseURL, sink: sink)
        defer { engine.stop() }
        #expect(try await engine.looksAgain(waking: harness.databaseURL))
        #expect(try harness.count("SELECT count(*) FROM runs") == 0)
        // Pausing twice is refused: it is no longer scheduled or sending.
        #expect(throws: AppError.self) { try campaigns.pause(draft.id, expectedVersion: draft.version, by: actor) }
        #expect(try campaigns.resume(draft.id, expectedVersion: draft.version, by: actor).status == .scheduled)
        #expect(try await eventually(timeout: waitingLimit) { try campaigns.get(draft.id).status == .sent })
        #expect(sink.receivedCounts().count == 1)
    }
}
