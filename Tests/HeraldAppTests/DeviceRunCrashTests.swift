import FCMEmulator
import Foundation
import HeraldPostgres
import HeraldTestSupport
import Testing
@testable import HeraldApp

/// A run to 50,000 devices plans while it sends, and survives SIGKILL twice: once while it is
/// planning (the restart resumes at the position the run kept) and once while it is sending (the
/// next process takes over the expired leases). Every device gets the message, none is planned
/// twice, and FCM sees no more repeats than the requests in flight at the two kills.
@Suite(.serialized) struct DeviceRunCrashTests {
    static let devices = 50_000

    @Test(.timeLimit(.minutes(5)))
    func aRunKilledWhilePlanningAndWhileSendingReachesEveryDeviceOnce() async throws {
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
        let environment = DeliveryInstancesTests.environment(sink, lease: 3)
        let first = try HeraldProcess(databaseURL: url, environment: environment)
        try first.waitUntilSending()
        _ = try probe.connection.execute("""
            INSERT INTO campaigns (name, status, content, next_run_at)
            VALUES ('Everyone', 'scheduled', \(PostgresJSONB(#"{"name": "Everyone", "notification": {"title": "Hello"}, "segment": "\#(segment)"}"#)), now())
            """)

        // Killed between its first chunk and its last, whatever it had in flight by then.
        func leased(_ process: HeraldProcess) throws -> Int {
            try probe.connection.query("""
                SELECT count(*) FROM deliveries WHERE status IN ('pending', 'retrying') AND lease_owner LIKE \("%:\(process.pid):%")
                """).first?.decode(Int.self, at: 0) ?? 0
        }
        var inFlight = 0
        let planningWhenKilled = try first.killHoldingWork {
            guard try probe.count("SELECT count(*) FROM runs WHERE planning AND planned > 0") > 0 else { return 0 }
            inFlight = try leased(first)
            return 1
        }
        #expect(planningWhenKilled == 1)
        let plannedAtFirstKill = try probe.count("SELECT coalesce(sum(planned), 0) FROM runs")
        #expect(plannedAtFirstKill < Self.devices)

        // The restart resumes planning; killed again once everything is planned, mid-send.
        let second = try HeraldProcess(databaseURL: url, environment: environment)
        try second.waitUntilSending()
        #expect(try await eventually(timeout: .seconds(120)) {
            try probe.connection.query("SELECT count(*) FROM runs WHERE NOT planning AND planned = \(Self.devices)").first?.decode(Int.self, at: 0) == 1
        })
        inFlight += try second.killHoldingWork { try leased(second) }

        let third = try HeraldProcess(databaseURL: url, environment: environment)
        try third.waitUntilSending()
        #expect(try await eventually(timeout: .seconds(180)) {
            try probe.count("SELECT count(*) FROM campaigns WHERE status = 'sent'") == 1
        })
        #expect(try probe.count("SELECT count(*) FROM deliveries") == Self.devices)
        #expect(try probe.count("SELECT count(DISTINCT device_token) FROM deliveries") == Self.devices)  // none planned twice
        #expect(try probe.count("SELECT count(*) FROM deliveries WHERE status <> 'sent'") == 0)
        var received: [String: Int] = [:]
        for message in sink.emulator.messages() { received[message.message["token"]?.stringValue ?? "", default: 0] += 1 }
        #expect(received.count == Self.devices)  // nothing lost
        let duplicates = received.values.reduce(0) { $0 + $1 - 1 }
        #expect(duplicates <= inFlight, "\(duplicates) repeated, \(inFlight) in flight at the kills")
        print("device run crash: killed planning at \(plannedAtFirstKill) of \(Self.devices) planned, then sending; \(inFlight) in flight, \(duplicates) repeated")
    }
}
