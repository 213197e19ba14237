import FCMEmulator
import Foundation
import HeraldCore
import HeraldJSON
import HeraldPostgres
import HeraldTestSupport
import Testing
@testable import HeraldApp

/// Pausing a running campaign through the service, with a real engine sending to the emulator:
/// the requests stop within one worker round, other campaigns go on, and resuming sends the rest
/// exactly once.
@Suite(.serialized) struct DeliveryPauseTests {
    let actor = Actor(name: "publisher@example.com", address: "127.0.0.1")

    @Test(.timeLimit(.minutes(2)))
    func pausingStopsNewRequestsWithinOneRoundAndResumingSendsTheRestOnce() async throws {
        let harness = try TestApplication()
        let campaigns = harness.app.campaigns
        // Each request takes a second: a run of ten (one in flight at a time) takes ten, time
        // enough to pause it midway even on a machine busy with other tests.
        let sink = try EmulatorSink(faults: FaultInjection(slow: 1, slowDelay: .seconds(1)))
        let topics = (0..<50).map { "pause-\($0)" }  // ten requests of five topics
        let paused = try campaigns.create(try CampaignService.validated(campaignJSON(name: "Paused midway", topics: topics)), by: actor, now: Date())
        let other = try campaigns.create(try CampaignService.validated(campaignJSON(name: "Goes on", topics: ["other"])), by: actor, now: Date())
        _ = try campaigns.publishNow(paused.id, expectedVersion: paused.version, by: actor, now: Date())

        let engine = try DeliveryOutboxTests.startEngine(url: harness.databaseURL, sink: sink)
        defer { engine.stop() }
        func sent(_ id: CampaignID) throws -> Int {
            try harness.count("SELECT count(*) FROM deliveries WHERE status = 'sent' AND campaign_id = '\(id)'")
        }
        #expect(try await eventually(timeout: .seconds(20)) { try sent(paused.id) >= 1 })
        let running = try campaigns.get(paused.id)
        let pausedRecord = try campaigns.pause(paused.id, expectedVersion: running.version, by: actor)
        #expect(pausedRecord.status == .paused)
        let atPause = sink.emulator.sendAttempts().count

        // A campaign published while the other is paused is sent: only the paused one waits.
        _ = try campaigns.publishNow(other.id, expectedVersion: other.version, by: actor, now: Date())
        #expect(try await eventually(timeout: .seconds(10)) { try campaigns.get(other.id).status == .sent })
        try await Task.sleep(for: .seconds(2.5))
        // At most the one request that was in flight when it was paused reached FCM afterwards.
        let duringPause = sink.emulator.sendAttempts().count - atPause - 1  // the other campaign's one request
        #expect(duringPause <= 1, "\(duringPause) requests of the paused campaign after the pause")
        let whilePaused = try sent(paused.id)
        #expect(whilePaused < 10)
        try await Task.sleep(for: .seconds(1))
        #expect(try sent(paused.id) == whilePaused)
        #expect(try campaigns.get(paused.id).status == .paused)
        #expect(try harness.count("SELECT count(*) FROM deliveries WHERE campaign_id = '\(paused.id)' AND status = 'pending'") == 10 - whilePaused)

        // Resuming a campaign that is not paused is refused and says why.
        #expect(throws: AppError.self) { try campaigns.resume(other.id, expectedVersion: other.version, by: actor) }
        let resumed = try campaigns.resume(paused.id, expectedVersion: pausedRecord.version, by: actor)
        #expect(resumed.status == .sending)
        #expect(try await eventually(timeout: .seconds(30)) { try campaigns.get(paused.id).status == .sent })
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

    @Test(.timeLimit(.minutes(1)))
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
        try await Task.sleep(for: .seconds(1.5))
        #expect(try harness.count("SELECT count(*) FROM runs") == 0)
        // Pausing twice is refused: it is no longer scheduled or sending.
        #expect(throws: AppError.self) { try campaigns.pause(draft.id, expectedVersion: draft.version, by: actor) }
        #expect(try campaigns.resume(draft.id, expectedVersion: draft.version, by: actor).status == .scheduled)
        #expect(try await eventually(timeout: .seconds(10)) { try campaigns.get(draft.id).status == .sent })
        #expect(sink.receivedCounts().count == 1)
    }
}
