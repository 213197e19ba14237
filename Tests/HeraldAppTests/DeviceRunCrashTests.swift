import FCMEmulator
import Foundation
import HeraldPostgres
import HeraldTestSupport
import Testing
@testable import HeraldApp

/// A run to 50,000 devices streams: each claim reads the next devices after the run's position,
/// leases them as one batch and moves the position on. It survives SIGKILL twice while it sends
/// (the next process takes over the expired batches and goes on from the position). Every device
/// gets the message, none is read twice into the run, and FCM sees no more repeats than the
/// requests in flight at the two kills.
@Suite(.serialized) struct DeviceRunCrashTests {
    static let devices = 50_000

    @Test(.timeLimit(.minutes(5)))
    func aStreamedRunKilledTwiceWhileSendingReachesEveryDeviceOnce() async throws {
        let url = try DeliveryOutboxTests.migratedDatabase()
        let probe = try OutboxProbe(url: url)
        defer { probe.close() }
        _ = try probe.connection.execute("""
            INSERT INTO devices (token, platform, language)
            SELECT 'crash-' || lpad(g::text, 6, '0') || ':APA91b' || repeat('k', 120), 'android', CASE WHEN g % 2 = 0 THEN 'fa' ELSE 'en' END
            FROM generate_series(1, \(Self.devices)) AS g
            """)
        let segment = try #require(try probe.connection.query("""
            INSERT INTO segments (name, rule) VALUES ('Everyone', '{"any": [{"field": "language", "in": ["fa", "en"]}]}') RETURNING id::text
            """).first?.decode(String.self, at: 0))
        let sink = try EmulatorSink(faults: FaultInjection(slow: 1, slowDelay: .milliseconds(50)), handlerThreads: 64)
        // FCM's quota, lowered, bounds how far a process can get while the test, starved on a busy
        // machine, reads its progress: at 600 a second the run lasts over 80 seconds, so each kill
        // lands mid-run (in a CI run the first process once sent everything before it was stopped).
        let environment = DeliveryInstancesTests.environment(sink, lease: 3).merging(["HERALD_FCM_RATE_PER_MINUTE": "36000"]) { _, new in new }
        _ = try probe.connection.execute("""
            INSERT INTO campaigns (name, status, content, next_run_at)
            VALUES ('Everyone', 'scheduled', \(PostgresJSONB(#"{"name": "Everyone", "notification": {"title": "Hello"}, "segment": "\#(segment)"}"#)), now())
            """)

        // Killed while devices remain to be read, with a batch of its own in flight; then again.
        var inFlight = 0
        for _ in 0..<2 {
            let process = try HeraldProcess(databaseURL: url, environment: environment)
            try await process.waitUntilSending()
            let sentBefore = try probe.streamed("sent")
            inFlight += try await process.killHoldingWork(once: { try probe.streamed("sent") >= sentBefore + 2_000 }) {
                try probe.streamedInFlight(pid: process.pid)
            }
            let sent = try probe.streamed("sent")
            #expect(sent >= sentBefore + 2_000 && sent < Self.devices, "killed with \(sent) sent, \(sentBefore) before this process")
            #expect(try probe.count("SELECT count(*) FROM runs WHERE planning") == 1)
        }
        let third = try HeraldProcess(databaseURL: url, environment: environment)
        try await third.waitUntilSending()
        #expect(try await eventually(timeout: .seconds(180)) {
            try probe.count("SELECT count(*) FROM campaigns WHERE status = 'sent'") == 1
        })
        #expect(try probe.count("SELECT count(*) FROM deliveries") == 0)  // no row per device
        #expect(try probe.streamed("planned") == Self.devices)  // none read twice
        #expect(try probe.streamed("sent") == Self.devices)
        #expect(try probe.count("SELECT planned FROM runs") == Self.devices)
        var received: [String: Int] = [:]
        for message in sink.emulator.messages() { received[message.message["token"]?.stringValue ?? "", default: 0] += 1 }
        #expect(received.count == Self.devices)  // nothing lost
        let duplicates = received.values.reduce(0) { $0 + $1 - 1 }
        #expect(duplicates <= inFlight, "\(duplicates) repeated, \(inFlight) in flight at the kills")
        print("streamed run crash: \(Self.devices) devices, killed twice while sending with \(inFlight) devices in flight, \(duplicates) repeated")
    }
}
