import FCMEmulator
import FCMMessage
import Foundation
import HeraldCore
import HeraldJSON
import HeraldPostgres
import HeraldTestSupport
import Testing
@testable import HeraldApp

/// Devices by Firebase installation ID, end to end: the registry in PostgreSQL, campaigns sent
/// through the emulator over real sockets, and a device moved from its token to its FID between
/// two runs of one campaign.
@Suite(.serialized) struct FIDDeliveryTests {
    let actor = Actor(name: "app-backend")

    static func token(_ index: Int) -> String { AudienceDeliveryTests.token(index) }
    /// An installation ID: 22 URL-safe Base64 characters, the first of c, d, e, f.
    static func fid(_ index: Int) -> String { "f" + String(format: "%021d", index) }

    /// Sends the campaign again (a new occurrence of it), as a recurring campaign's next run would.
    func sendAgain(_ campaign: String, _ setup: AudienceDeliveryTests.Setup) throws {
        _ = try setup.probe.connection.execute("UPDATE campaigns SET status = 'scheduled', next_run_at = now() WHERE id = \(campaign)::uuid")
    }

    /// Runs of the campaign that have ended.
    func runs(_ campaign: String, _ setup: AudienceDeliveryTests.Setup) throws -> Int {
        try count(setup, "SELECT count(*) FROM runs WHERE campaign_id = \(campaign)::uuid AND status <> 'sending'")
    }

    func count(_ setup: AudienceDeliveryTests.Setup, _ query: PostgresQuery) throws -> Int {
        try setup.probe.connection.query(query).first.map { try $0.decode(Int.self, at: 0) } ?? 0
    }

    /// The must-show of issue 22: registered by token, moved to its FID, the device gets one
    /// message per run of the campaign, named by `fid` (never `token`), in the variant it had
    /// before the move; the history it had under its token (an open) shows under its FID.
    @Test(.timeLimit(.minutes(3)))
    func aDeviceMovedFromItsTokenToItsFIDGetsOneMessagePerRunWithFIDInTheSameVariant() async throws {
        let sink = try EmulatorSink()
        let setup = try AudienceDeliveryTests.Setup()
        defer { setup.probe.close() }
        try setup.register((0..<40).map { ["token": .string(Self.token($0)), "platform": "android", "properties": ["first_name": .string("N\($0)")]] })
        let segment = try setup.segments.create(["name": "Everyone", "rule": ["all": [["field": "platform", "equals": "android"]]]], by: actor)
        let campaign = try setup.schedule([
            "name": "A/B", "notification": ["title": "Hello {{first_name | default: \"there\"}}", "body": "News"], "segment": .string(segment.id.description),
            "variants": [["key": "A", "weight": 50, "notification": ["body": "Variant A"]],
                         ["key": "B", "weight": 50, "notification": ["body": "Variant B"]]],
        ])
        let engine = try DeliveryOutboxTests.startEngine(url: setup.url, sink: sink)
        defer { engine.stop(); engine.waitUntilStopped(timeout: .seconds(10)) }
        #expect(try await eventually(timeout: waitingLimit) { try setup.status(campaign) == "sent" })

        let moving = Self.token(7), fid = Self.fid(7)
        let first = sink.emulator.messages()
        #expect(first.count == 40)
        let before = try #require(first.first { $0.message["token"]?.stringValue == moving })
        let variantBefore = try #require(before.message["notification"]?["body"]?.stringValue)
        // Its history under the token: an open of the first run.
        let variantKey = variantBefore == "Variant A" ? "A" : "B"
        _ = try EventService(database: setup.database).record(["id": "open-1", "campaign_id": .string(campaign), "variant": .string(variantKey), "type": "open",
                                                                "device_token": .string(moving)])

        let move = try setup.devices.moveToFID(token: moving, document: ["fid": .string(fid)], by: actor)
        #expect(move.moved && move.device.device.kind == .fid && move.device.device.token == fid)
        #expect(move.device.device.properties == ["first_name": "N7"])
        #expect(throws: AppError.self) { try setup.devices.get(moving) }
        // A retried call (its answer lost) finds the device moved and changes nothing.
        #expect(try setup.devices.moveToFID(token: moving, document: ["fid": .string(fid)], by: actor).moved == false)

        try sendAgain(campaign, setup)
        #expect(try await eventually(timeout: waitingLimit) { try runs(campaign, setup) == 2 && setup.status(campaign) == "sent" })
        let second = Array(sink.emulator.messages().dropFirst(first.count))
        #expect(second.count == 40)
        let toFID = second.filter { $0.message["fid"]?.stringValue == fid }
        #expect(toFID.count == 1)
        #expect(toFID.first?.message["token"] == nil)
        #expect(toFID.first?.message["notification"]?["title"] == "Hello N7")
        #expect(toFID.first?.message["notification"]?["body"]?.stringValue == variantBefore)
        #expect(!second.contains { $0.message["token"]?.stringValue == moving })
        // Every other device is still named by its token.
        #expect(second.filter { $0.message["token"] != nil }.count == 39)

        // The open recorded under the token is the FID's now; no row keeps the old token.
        #expect(try count(setup, "SELECT count(*) FROM events WHERE device_token = \(fid)") == 1)
        #expect(try count(setup, "SELECT count(*) FROM events WHERE device_token = \(moving)") == 0)
        // Audited, naming the FID.
        #expect(try count(setup, "SELECT count(*) FROM audit_log WHERE action = 'device.moved_to_fid' AND object_id = \(fid)") == 1)
    }

    /// A planned run (a spread) keeps a row per device: requests written for the token before the
    /// move are re-aimed at the FID, and the device still gets one message.
    @Test(.timeLimit(.minutes(3)))
    func aRequestWrittenForTheTokenBeforeTheMoveGoesToTheFID() async throws {
        let sink = try EmulatorSink()
        let setup = try AudienceDeliveryTests.Setup()
        defer { setup.probe.close() }
        try setup.register((0..<3).map { ["token": .string(Self.token($0)), "platform": "ios"] })
        let segment = try setup.segments.create(["name": "iOS", "rule": ["all": [["field": "platform", "equals": "ios"]]]], by: actor)
        let campaign = try setup.schedule(["name": "Spread", "notification": ["title": "Hi"], "segment": .string(segment.id.description)])
        _ = try setup.probe.connection.execute("UPDATE campaigns SET next_run_at = NULL WHERE id = \(campaign)::uuid")
        // Planned by hand as the writer plans a spread, then the device moves before any claim.
        let content: JSON = ["name": "Spread", "notification": ["title": "Hi"], "segment": .string(segment.id.description)]
        let planned = try setup.database.transaction { connection -> Int in
            _ = try connection.execute("UPDATE campaigns SET status = 'sending', next_run_at = NULL WHERE id = \(campaign)::uuid")
            guard case .success(let spec) = CampaignSpec.parse(content), let audience = try RunStarter.devices(of: spec.audience, on: connection) else { return 0 }
            let due = DeliveryStore.Due(campaignID: CampaignID(campaign)!, content: content, version: 1, occurrence: Date(), occurrenceText: "2026-01-01T00:00:00Z")
            return try DeviceRunWriter().start(due, audience: audience, controlGroup: nil, on: connection)?.deliveries ?? 0
        }
        #expect(planned == 3)
        _ = try setup.devices.moveToFID(token: Self.token(1), document: ["fid": .string(Self.fid(1))], by: actor)
        #expect(try count(setup, "SELECT count(*) FROM deliveries WHERE device_token = \(Self.fid(1)) AND target = jsonb_build_object('fid', \(Self.fid(1))::text)") == 1)

        let engine = try DeliveryOutboxTests.startEngine(url: setup.url, sink: sink)
        defer { engine.stop(); engine.waitUntilStopped(timeout: .seconds(10)) }
        #expect(try await eventually(timeout: waitingLimit) { sink.emulator.messages().count == 3 })
        let messages = sink.emulator.messages()
        #expect(messages.filter { $0.message["fid"]?.stringValue == Self.fid(1) }.count == 1)
        #expect(!messages.contains { $0.message["token"]?.stringValue == Self.token(1) })
    }

    /// Token hygiene treats an FID as a token: UNREGISTERED for it marks its device invalid, and
    /// the next campaign leaves it out.
    @Test(.timeLimit(.minutes(3)))
    func anFIDThatFCMAnswersUnregisteredIsMarkedInvalid() async throws {
        let gone = Self.fid(1), alive = Self.fid(2)
        let sink = try EmulatorSink(unregistered: [gone])
        let setup = try AudienceDeliveryTests.Setup()
        defer { setup.probe.close() }
        try setup.register([["token": .string(gone), "kind": "fid", "platform": "android"],
                            ["token": .string(alive), "kind": "fid", "platform": "android"],
                            ["token": .string(Self.token(3)), "platform": "android"]])
        let segment = try setup.segments.create(["name": "Android", "rule": ["all": [["field": "platform", "equals": "android"]]]], by: actor)
        let campaign = try setup.schedule(["name": "Hygiene", "notification": ["title": "One"], "segment": .string(segment.id.description)])
        let engine = try DeliveryOutboxTests.startEngine(url: setup.url, sink: sink)
        defer { engine.stop(); engine.waitUntilStopped(timeout: .seconds(10)) }
        #expect(try await eventually(timeout: waitingLimit) { try setup.status(campaign) == "partially_failed" })
        let device = try setup.devices.get(gone)
        #expect(device.status == .invalid)
        #expect(device.invalidReason?.hasPrefix("UNREGISTERED") == true)
        #expect(try setup.devices.get(alive).status == .active)
        #expect(Set(sink.emulator.messages().compactMap { $0.message["fid"]?.stringValue }) == [alive])
    }
}
