import FCMEmulator
import Foundation
import HeraldCore
import HeraldJSON
import HeraldPostgres
import HeraldTestSupport
import Testing
@testable import HeraldApp

/// A streamed run reads its audience in token order from its position. Devices moved to their
/// FID mid-run change their place in that order: 150 read already whose FIDs sort ahead of the
/// position (they were sent twice), and 150 not read yet whose FIDs sort behind it (they were
/// never sent). Every device gets the campaign exactly once.
@Suite(.serialized) struct StreamedFIDMoveTests {
    static let devices = 20_000
    /// Tokens sort by their number, after every FID starting with c and before every one with e.
    static func token(_ index: Int) -> String { "d-" + String(format: "%05d", index) + ":APA91b" + String(repeating: "k", count: 100) }
    static func fidBehind(_ index: Int) -> String { "c" + String(format: "%021d", index) }
    static func fidAhead(_ index: Int) -> String { "e" + String(format: "%021d", index) }

    @Test(.timeLimit(.minutes(5)))
    func aDeviceMovedToItsFIDDuringAStreamedRunGetsItExactlyOnce() async throws {
        let sink = try EmulatorSink()
        let setup = try AudienceDeliveryTests.Setup()
        defer { setup.probe.close() }
        let connection = setup.probe.connection
        let segment = try setup.probe.insertAndroidDevicesAndTheirSegment((0..<Self.devices).map(Self.token))
        let campaign = try setup.schedule(["name": "Moving", "notification": ["title": "Hi"], "segment": .string(segment)])
        #expect(try RunStarter(buckets: AudienceBuckets()).startDueRuns(limit: 10, now: Date(), on: connection).count == 1)

        // Half the audience goes out in rounds of 256, as workers would send it.
        let sender = try sink.sender()
        for _ in 0..<40 {
            let round = try StreamedRunStore().claim(owner: "early", limit: 256, lease: .seconds(60), on: connection)
            let answers = sender.send(batch: round.map(\.body), validateOnly: false, concurrency: 32)
            try DeliveryStore().record(zip(round, answers).map { claimed, answer in
                DeliveryStore.Outcome(id: claimed.id, status: answer.name == nil ? .failed : .sent, messageName: answer.name, device: claimed.device)
            }, owner: "early", runIDs: Set(round.map(\.runID)), on: connection)
        }
        let position = try #require(try connection.query("SELECT plan_after FROM runs").first?.decode(String.self, at: 0))
        #expect(position == Self.token(40 * 256 - 1))

        // 150 read already move to FIDs ahead of the position, 150 not read yet to FIDs behind it.
        let actor = Actor(name: "app-backend")
        for index in 0..<150 {
            _ = try setup.devices.moveToFID(token: Self.token(index), document: ["fid": .string(Self.fidAhead(index))], by: actor)
            _ = try setup.devices.moveToFID(token: Self.token(15_000 + index), document: ["fid": .string(Self.fidBehind(15_000 + index))], by: actor)
        }

        let engine = try DeliveryOutboxTests.startEngine(url: setup.url, sink: sink)
        defer { engine.stop(); engine.waitUntilStopped(timeout: .seconds(10)) }
        #expect(try await eventually(timeout: waitingLimit) { try setup.status(campaign) == "sent" })

        var received: [String: Int] = [:]
        for message in sink.emulator.messages() {
            let name = message.message["token"]?.stringValue ?? message.message["fid"]?.stringValue ?? ""
            // A moved device is one device under either name.
            let device = name.hasPrefix("e") ? Self.token(Int(name.dropFirst())!) : name.hasPrefix("c") ? Self.token(Int(name.dropFirst())!) : name
            received[device, default: 0] += 1
        }
        #expect(received.count == Self.devices, "\(Self.devices - received.count) devices never got it")
        let twice = received.filter { $0.value != 1 }
        #expect(twice.isEmpty, "\(twice.count) devices got it more than once")
        // The report counts each device once too.
        #expect(try setup.probe.streamed("sent") == Self.devices)
        #expect(try setup.probe.streamed("planned") == Self.devices)
        #expect(try setup.probe.count("SELECT count(*) FROM run_skips") == 0)  // dropped when the run closed
    }
}
