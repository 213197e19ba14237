import FCMEmulator
import Foundation
import HeraldCore
import HeraldJSON
import HeraldPostgres
import HeraldTestSupport
import Testing
@testable import HeraldApp

/// A journey of 50,000 devices survives SIGKILL during its wait and during its send step: the
/// wait's timers, fallen due while no instance ran, fire when one starts, once; no device's place
/// is lost; no device is sent the step twice beyond the requests in flight at the kill.
@Suite(.serialized) struct JourneyCrashTests {
    static let devices = 50_000
    let actor = Actor(name: "growth@example.com")

    @Test(.timeLimit(.minutes(5)))
    func aJourneyKilledDuringItsWaitAndDuringItsSendReachesEveryDeviceOnce() async throws {
        let url = try DeliveryOutboxTests.migratedDatabase()
        let probe = try OutboxProbe(url: url)
        defer { probe.close() }
        func token(_ index: Int) -> String { "journey-\(String(index).leftPadded(6)):APA91b" + String(repeating: "k", count: 120) }
        _ = try probe.connection.execute("""
            INSERT INTO devices (token, platform, language)
            SELECT 'journey-' || lpad(g::text, 6, '0') || ':APA91b' || repeat('k', 120), 'android', 'en' FROM generate_series(0, \(Self.devices - 1)) AS g
            """)
        let database = Database(pool: PostgresPool(url: url, maxConnections: 2, acquireTimeout: .seconds(5)))
        let journeys = JourneyService(database: database, approvalsRequired: false)
        let journey = try journeys.create([
            "name": "Welcome", "entry": ["event": "signed_up"],
            "steps": [["name": "settle", "type": "wait", "minutes": 60],
                      ["name": "welcome", "type": "send", "message": ["notification": ["title": "Welcome"], "options": ["labels": "none"]]]],
        ], by: actor)
        _ = try journeys.publish(journey.id, expectedVersion: nil, moveDevices: false, by: actor)
        let events = EventService(database: database, journeys: JourneyEvents())
        for start in stride(from: 0, to: Self.devices, by: 500) {
            _ = try events.record(["events": .array((start..<(start + 500)).map { ["id": .string("signup-\($0)"), "event": "signed_up", "device": .string(token($0))] })])
        }
        #expect(try probe.count("SELECT count(*) FROM journey_states WHERE status = 'active' AND step = 0") == Self.devices)

        let sink = try EmulatorSink(faults: FaultInjection(slow: 1, slowDelay: .milliseconds(50)), handlerThreads: 64)
        let environment = DeliveryInstancesTests.environment(sink, lease: 3)
        // Killed during the wait: nothing is due, nothing is lost.
        let first = try HeraldProcess(databaseURL: url, environment: environment)
        try await first.waitUntilSending()
        _ = try await first.killHoldingWork { 1 }
        #expect(try probe.count("SELECT count(*) FROM journey_states WHERE status = 'active' AND step = 0") == Self.devices)
        #expect(sink.emulator.messages().isEmpty)

        // The hour passes while no instance runs; the next to start fires every timer, and is
        // killed while it sends, holding requests in flight.
        _ = try probe.connection.execute("UPDATE journey_states SET since = since - interval '61 minutes', due_at = due_at - interval '61 minutes'")
        let second = try HeraldProcess(databaseURL: url, environment: environment)
        try await second.waitUntilSending()
        let inFlight = try await second.killHoldingWork(once: { sink.emulator.messages().count >= 2_000 }) {
            try probe.streamedInFlight(pid: second.pid)
        }
        let third = try HeraldProcess(databaseURL: url, environment: environment)
        try await third.waitUntilSending()
        #expect(try await eventually(timeout: .seconds(180)) {
            try probe.count("SELECT count(*) FROM journey_states WHERE status = 'completed'") == Self.devices
                && probe.count("SELECT count(*) FROM device_batches WHERE status = 'pending'") == 0
        })
        #expect(try probe.count("SELECT count(*) FROM deliveries") == 0)  // no row per device
        #expect(try probe.streamed("planned") == Self.devices)  // one request per device: none moved twice
        var received: [String: Int] = [:]
        for message in sink.emulator.messages() { received[message.message["token"]?.stringValue ?? "", default: 0] += 1 }
        #expect(received.count == Self.devices)  // nothing lost
        let duplicates = received.values.reduce(0) { $0 + $1 - 1 }
        #expect(duplicates <= inFlight, "\(duplicates) repeated, \(inFlight) in flight at the kill")
        let report = try journeys.report(journey.id)
        #expect(report.entered == Self.devices && report.completed == Self.devices)
        #expect(report.steps.first { $0.name == "welcome" }?.sent == Self.devices)
        print("journey crash: \(Self.devices) devices, killed during the wait and during the send with \(inFlight) requests in flight, \(duplicates) repeated")
    }
}

private extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
