import Foundation
import HeraldJSON
import HeraldPostgres
import HeraldTestSupport
import Testing
@testable import HeraldApp

/// A message's iOS lifetime counts from when it is sent, as Android's `ttl` and webpush's `TTL`
/// do: a run whose requests wait (here, one due an hour before it starts) does not send them with
/// an `apns-expiration` already in the past.
@Suite(.serialized) struct ExpiryAtSendTests {
    @Test(.timeLimit(.minutes(5)))
    func aMessageSentAnHourAfterItsRunWasDueLivesItsWholeExpiryFromTheSend() async throws {
        let sink = try EmulatorSink()
        let setup = try AudienceDeliveryTests.Setup()
        defer { setup.probe.close() }
        try setup.register([["token": .string(AudienceDeliveryTests.token(1)), "platform": "ios"]])
        let options: JSON = ["expiry_seconds": 600]
        for (name, target) in [("To a topic", ["topics": ["news"]] as JSONObject), ("To a device", ["tokens": [.string(AudienceDeliveryTests.token(1))]])] {
            var content: JSONObject = ["name": .string(name), "notification": ["title": .string(name)], "options": options]
            for (key, value) in target { content[key] = value }
            _ = try setup.probe.connection.execute("""
                INSERT INTO campaigns (name, status, content, next_run_at)
                VALUES (\(name), 'scheduled', \(PostgresJSONB(JSON.object(content).serializedString())), now() - interval '1 hour')
                """)
        }
        let engine = try DeliveryOutboxTests.startEngine(url: setup.url, sink: sink)
        defer { engine.stop(); engine.waitUntilStopped(timeout: .seconds(10)) }
        #expect(try await eventually(timeout: waitingLimit) { sink.emulator.messages().count == 2 })
        for message in sink.emulator.messages() {
            let expiration = try #require(message.message["apns"]?["headers"]?["apns-expiration"]?.stringValue.flatMap(Double.init))
            let sentAt = message.receivedAt.seconds
            // Six hundred seconds from the send (a second either way for rounding), not from an hour before.
            #expect(abs(expiration - (sentAt + 600)) <= 2, "\(message.message["notification"]?["title"] as Any): \(expiration - sentAt) s")
        }
    }
}
