import FCMEmulator
import FCMMessage
import Foundation
import HeraldCore
import HeraldJSON
import HeraldPostgres
import HeraldTestSupport
import Testing
@testable import HeraldApp

/// A Live Activity campaign end to end: devices registered with and without an activity token,
/// the campaign sent by the engine through the emulator over real sockets, and only the devices
/// with an activity to update reached, each by FCM's documented request.
@Suite(.serialized) struct LiveActivityDeliveryTests {
    let actor = Actor(name: "app-backend")

    static func token(_ index: Int) -> String { AudienceDeliveryTests.token(index) }
    static func activity(_ index: Int) -> String { String(repeating: String(format: "%02x", index), count: 32) }

    @Test(.timeLimit(.minutes(3)))
    func onlyTheDevicesWithAnActivityTokenGetTheUpdateAsFCMDocumentsIt() async throws {
        let sink = try EmulatorSink()
        let setup = try AudienceDeliveryTests.Setup()
        defer { setup.probe.close() }
        try setup.register([["token": .string(Self.token(1)), "platform": "ios", "live_activity_token": .string(Self.activity(1)), "properties": ["first_name": "Sara"]],
                            ["token": .string(Self.token(2)), "platform": "ios"],
                            ["token": .string(Self.token(3)), "platform": "ios", "live_activity_token": .string(Self.activity(3).uppercased())]])
        #expect(try setup.devices.get(Self.token(3)).device.liveActivityToken == Self.activity(3))
        let started = Int64(Date().timeIntervalSince1970)
        let campaign = try setup.schedule([
            "name": "Match", "tokens": .array((1...3).map { .string(Self.token($0)) }),
            "notification": ["title": "Goal, {{first_name | default: \"fan\"}}!"], "options": ["labels": "none"],
            "live_activity": ["event": "update", "content_state": ["score": "2-1", "minute": 67, "fan": "{{first_name | default: \"fan\"}}"]],
        ])
        let engine = try DeliveryOutboxTests.startEngine(url: setup.url, sink: sink)
        defer { engine.stop() }
        #expect(try await eventually(timeout: waitingLimit) { try setup.status(campaign) == "sent" })
        // Its threads joined off the test pool, before the registry is changed under it below.
        engine.stop()
        #expect(try await offThePool { engine.waitUntilStopped(timeout: waitingLimit) })
        let finished = Int64(Date().timeIntervalSince1970)

        let received = sink.emulator.messages().map(\.message)
        #expect(received.count == 2, "\(received)")
        for (index, name) in [(1, "Sara"), (3, "fan")] {
            let message = try #require(received.first { $0["token"]?.stringValue == Self.token(index) })
            let timestamp = try #require(message["apns"]?["payload"]?["aps"]?["timestamp"]?.intValue)
            #expect((started...finished).contains(Int64(timestamp)), "the time of sending, \(timestamp)")
            let documented: JSON = [
                "token": .string(Self.token(index)),
                "apns": [
                    "headers": ["apns-push-type": "liveactivity", "apns-priority": "10"],
                    "payload": ["aps": ["timestamp": .number(Double(timestamp)), "event": "update", "content-state": ["score": "2-1", "minute": 67, "fan": .string(name)],
                                        "alert": ["title": .string("Goal, \(name)!")]]],
                    "live_activity_token": .string(Self.activity(index)),
                ],
            ]
            #expect(message == documented, "\(message.serializedString())")
            // In FCM's documented order (the content state's members in the order the campaign's JSON keeps them).
            #expect(message["apns"]?.objectValue?.keys == ["headers", "payload", "live_activity_token"])
            #expect(message["apns"]?["payload"]?["aps"]?.objectValue?.keys == ["timestamp", "event", "content-state", "alert"])
        }
        #expect(!received.contains { $0["token"]?.stringValue == Self.token(2) })

        // Erasure forgets the device's activity token with it.
        try setup.devices.forget(Self.token(1))
        let kept = try setup.probe.connection.query("SELECT count(*) FROM devices WHERE live_activity_token = \(Self.activity(1))")
        #expect(try kept.first?.decode(Int.self, at: 0) == 0)
    }
}
