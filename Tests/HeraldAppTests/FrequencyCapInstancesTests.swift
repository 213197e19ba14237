import FCMEmulator
import Foundation
import HeraldPostgres
import HeraldTestSupport
import Testing
@testable import HeraldApp

/// Two `herald serve` processes send three campaigns to the same devices at once under a cap of
/// two a day, and one is killed (SIGKILL) while it holds devices: every device gets two of the
/// campaigns, never three; the third is reported capped; a repeat is at most what was in flight.
@Suite(.serialized) struct FrequencyCapInstancesTests {
    static let devices = 6_000

    @Test(.timeLimit(.minutes(5)))
    func twoInstancesAndAKillHoldACapOfTwoADay() async throws {
        let url = try DeliveryOutboxTests.migratedDatabase()
        let probe = try OutboxProbe(url: url)
        defer { probe.close() }
        _ = try probe.connection.execute("""
            INSERT INTO devices (token, platform) SELECT 'cap-' || lpad(g::text, 6, '0') || ':APA91b' || repeat('c', 100), 'android'
            FROM generate_series(1, \(Self.devices)) AS g
            """)
        let segment = try #require(try probe.connection.query("""
            INSERT INTO segments (name, rule) VALUES ('Everyone', '{"all": [{"field": "platform", "in": ["android"]}]}') RETURNING id::text
            """).first?.decode(String.self, at: 0))
        _ = try probe.connection.execute(#"UPDATE contact_policy SET caps = '{"marketing": {"day": 2}, "categories": {}}'"#)
        let sink = try EmulatorSink(faults: FaultInjection(slow: 1, slowDelay: .milliseconds(20)), handlerThreads: 64)
        let environment = DeliveryInstancesTests.environment(sink, lease: 3)
        let first = try HeraldProcess(databaseURL: url, environment: environment)
        let second = try HeraldProcess(databaseURL: url, environment: environment)
        for process in [first, second] { try await process.waitUntilSending() }
        for title in ["Monday", "Tuesday", "Wednesday"] {
            _ = try probe.connection.execute("""
                INSERT INTO campaigns (name, status, content, next_run_at)
                VALUES (\(title), 'scheduled', \(PostgresJSONB(#"{"name": "\#(title)", "notification": {"title": "\#(title)"}, "segment": "\#(segment)"}"#)), now())
                """)
        }
        // Killed while it holds devices of a batch, halfway through.
        let inFlight = try await first.killHoldingWork(once: { try probe.streamed("sent") >= Self.devices }) { try probe.streamedInFlight(pid: first.pid) }
        #expect(try probe.streamed("sent") >= Self.devices)
        let third = try HeraldProcess(databaseURL: url, environment: environment)
        try await third.waitUntilSending()
        #expect(try await eventually(timeout: .seconds(180)) {
            // All three ended; one that reached nobody (every device at its cap by then) ends nothing_sent.
            try probe.count("SELECT count(*) FROM campaigns WHERE status IN ('sent', 'nothing_sent')") == 3
        })

        var campaignsByDevice: [String: Set<String>] = [:]
        var messages = 0
        for message in sink.emulator.messages() {
            campaignsByDevice[message.message["token"]?.stringValue ?? "", default: []].insert(message.message["notification"]?["title"]?.stringValue ?? "")
            messages += 1
        }
        #expect(campaignsByDevice.count == Self.devices)
        // The cap held across both processes and the kill: two campaigns each, none three.
        #expect(campaignsByDevice.values.allSatisfy { $0.count == 2 }, "\(campaignsByDevice.values.filter { $0.count != 2 }.count) devices without exactly two")
        #expect(try probe.streamed("capped") == Self.devices)
        #expect(try probe.streamed("sent") == 2 * Self.devices)
        let repeats = messages - 2 * Self.devices
        #expect(repeats <= inFlight, "\(repeats) repeated, \(inFlight) in flight at the kill")
        print("frequency caps: 2 processes, 3 campaigns to \(Self.devices) devices under 2 a day, one killed with \(inFlight) in flight: "
              + "every device got 2 campaigns, \(Self.devices) capped, \(repeats) repeated")
    }
}
