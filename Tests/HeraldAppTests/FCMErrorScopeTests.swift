import FCMEmulator
import Foundation
import HeraldCore
import HeraldFCM
import HeraldJSON
import HeraldPostgres
import HeraldTestSupport
import Testing
@testable import HeraldApp

/// FCM's errors as they are meant: SENDER_ID_MISMATCH says the key is wrong for the tokens, not
/// that the devices are gone; a 429 about one device holds that device, not the project.
@Suite(.serialized) struct FCMErrorScopeTests {
    /// A key of another Firebase project: every device answers SENDER_ID_MISMATCH. The run is
    /// stopped after its first answers, the campaign paused with the reason, and no device is
    /// marked invalid.
    @Test(.timeLimit(.minutes(5)))
    func aWrongKeyStopsTheRunAndMarksNoDeviceInvalid() async throws {
        let tokens = (0..<2000).map(AudienceDeliveryTests.token)
        let sink = try EmulatorSink(otherSenders: Set(tokens))
        let setup = try AudienceDeliveryTests.Setup()
        defer { setup.probe.close() }
        let segment = try setup.probe.insertAndroidDevicesAndTheirSegment(tokens)
        let engine = try DeliveryOutboxTests.startEngine(url: setup.url, sink: sink)
        defer { engine.stop(); engine.waitUntilStopped(timeout: .seconds(10)) }
        let campaign = try setup.schedule(["name": "Wrong key", "notification": ["title": "Hi"], "segment": .string(segment)])

        #expect(try await eventually(timeout: waitingLimit) { try setup.status(campaign) == "paused" })
        #expect(try await engine.looksAgain(waking: setup.url))
        #expect(try setup.probe.count("SELECT count(*) FROM devices WHERE status = 'invalid'") == 0)
        // It stopped after its first rounds: the rest were never sent.
        let attempts = sink.emulator.sendAttempts().count
        #expect(attempts > 0 && attempts <= 3 * DeliveryEngine.Configuration().deviceBatchSize, "\(attempts) sent")
        let warning = try #require(try setup.probe.connection.query("SELECT warnings::text FROM runs").first?.decode(String.self, at: 0))
        #expect(warning.contains("SENDER_ID_MISMATCH") && warning.contains("no device was marked invalid"))
        #expect(try setup.probe.count("SELECT count(*) FROM audit_log WHERE action = 'campaign.paused' AND details->>'reason' = 'wrong_credentials'") == 1)
    }

    /// Three devices over their own rate answer 429: the other 97 go out at once, the shared
    /// quota holds nobody, and the three wait to be tried again.
    @Test(.timeLimit(.minutes(5)))
    func aDevicesOwn429HoldsNoOtherDevice() async throws {
        let tokens = (0..<100).map(AudienceDeliveryTests.token)
        let throttled = Set(tokens.prefix(3))
        let sink = try EmulatorSink(faults: FaultInjection(retryAfterSeconds: 120), throttled: throttled)
        let setup = try AudienceDeliveryTests.Setup()
        defer { setup.probe.close() }
        let segment = try setup.probe.insertAndroidDevicesAndTheirSegment(tokens)
        let engine = try SendQuotaTests.engine(url: setup.url, sink: sink, rate: DeliveryEngine.SendRate(project: "herald-test", messages: 600_000),
                                               deviceRound: 256)
        defer { engine.stop(); engine.waitUntilStopped(timeout: .seconds(10)) }
        _ = try setup.schedule(["name": "Mostly fine", "notification": ["title": "Hi"], "segment": .string(segment)])

        #expect(try await eventually(timeout: waitingLimit) { try setup.probe.streamed("sent") == 97 })
        #expect(Set(sink.emulator.messages().compactMap { $0.message["token"]?.stringValue }) == Set(tokens).subtracting(throttled))
        #expect(try setup.probe.streamed("retrying") == 3)
        #expect(try setup.probe.count("SELECT count(*) FROM send_buckets WHERE not_before > now()") == 0)  // nobody held
        #expect(try setup.probe.count("SELECT count(*) FROM devices WHERE status = 'invalid'") == 0)
    }
}
