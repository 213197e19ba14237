import FCMEmulator
import FCMMessage
import Foundation
import HeraldCore
import HeraldJSON
import HeraldPostgres
import HeraldTestSupport
import Synchronization
import Testing
@testable import HeraldApp

/// Journeys end to end: devices enter on an app event, walk the steps on a clock the test
/// controls, and are sent each step's message by the engine through the emulator over real
/// sockets, by the rules every send meets.
@Suite(.serialized) struct JourneyDeliveryTests {
    let actor = Actor(name: "growth@example.com")

    static func token(_ index: Int) -> String { AudienceDeliveryTests.token(index) }

    /// The time journeys move by: now, plus what the test has moved it on.
    final class Clock: Sendable {
        let offset = Mutex<TimeInterval>(0)
        func now() -> Date { Date().addingTimeInterval(offset.withLock { $0 }) }
        func advance(minutes: Double) { offset.withLock { $0 += minutes * 60 } }
    }

    static let welcome: JSON = [
        "name": "Welcome",
        "entry": ["event": "signed_up"],
        "goal": ["event": "purchased"],
        "holdout_percent": 10,
        "steps": [
            ["name": "settle", "type": "wait", "minutes": 60],
            ["name": "welcome", "type": "send", "message": [
                "notification": ["title": "Welcome, {{first_name | default: \"friend\"}}"],
                "variants": [["key": "A", "weight": 1, "notification": ["body": "Take the tour"]],
                             ["key": "B", "weight": 1, "notification": ["body": "10% off your first order"]]],
                "options": ["labels": "none"],
            ]],
            ["name": "read it?", "type": "wait", "until": ["opened": true], "minutes": 1440],
            ["name": "opened?", "type": "branch", "if": ["opened": true], "then": "done", "else": "reminder"],
            ["name": "reminder", "type": "send", "message": ["notification": ["title": "Still there?", "body": "Your tour is waiting"],
                                                             "options": ["labels": "none"]]],
            ["name": "done", "type": "exit"],
        ],
    ]

    static func startEngine(url: String, sink: EmulatorSink, clock: Clock) throws -> DeliveryEngine {
        var settings = DeliveryEngine.Configuration()
        settings.pollInterval = .seconds(1)
        settings.journeyClock = { clock.now() }
        let pool = PostgresPool(url: url, maxConnections: 6, acquireTimeout: .seconds(5))
        let engine = DeliveryEngine(configuration: settings, pool: pool, databaseURL: url, sender: try sink.sender(),
                                    log: Log(minimum: .error), metrics: Metrics())
        engine.start()
        return engine
    }

    func count(_ setup: AudienceDeliveryTests.Setup, _ sql: PostgresQuery) throws -> Int {
        try setup.probe.connection.query(sql).first?.decode(Int.self, at: 0) ?? -1
    }

    @Test(.timeLimit(.minutes(5)))
    func aWelcomeJourneySendsEachStepOnceByEveryRuleAndNothingToItsHoldoutOrAfterTheGoal() async throws {
        let sink = try EmulatorSink()
        let setup = try AudienceDeliveryTests.Setup()
        defer { setup.probe.close() }
        let n = 1000
        try setup.register((0..<n).map { index in
            ["token": .string(Self.token(index)), "platform": "android", "properties": index % 2 == 0 ? ["first_name": "Sara"] : [:]]
        })
        let journeys = JourneyService(database: setup.database, approvalsRequired: false)
        let events = EventService(database: setup.database, journeys: JourneyEvents())
        let journey = try journeys.create(Self.welcome, by: actor)
        _ = try journeys.publish(journey.id, expectedVersion: journey.version, moveDevices: false, by: actor)
        // Two marketing messages a day: a device sent another campaign besides the welcome is capped.
        _ = try ContactPolicyService(database: setup.database).setCaps(["marketing": ["day": 2]], expectedVersion: nil, by: actor)
        // A CRM listens to who enters, leaves and buys.
        _ = try setup.probe.connection.execute("""
            INSERT INTO webhooks (url, events, secret, created_by)
            VALUES ('https://crm.example.com/hooks', '{journey.entered,journey.exited,journey.goal_reached}', 'whsec_test', 'test')
            """)
        let clock = Clock()
        let engine = try Self.startEngine(url: setup.url, sink: sink, clock: clock)
        defer { engine.stop() }

        // Everyone signs up, in batches; a batch sent twice moves no one twice.
        func signUps(_ range: Range<Int>) -> JSON {
            ["events": .array(range.map { ["id": .string("signup-\($0)"), "event": "signed_up", "device": .string(Self.token($0))] })]
        }
        for start in stride(from: 0, to: n, by: 500) { _ = try events.record(signUps(start..<(start + 500))) }
        let again = try events.record(signUps(0..<500))
        #expect(again.recorded == 0 && again.duplicates == 500)
        let held = Set((0..<n).filter { JourneyMachine.isHeldOut(Self.token($0), journeyID: journey.id.description, percent: 10) })
        #expect((50...150).contains(held.count), "\(held.count) of \(n) held out")
        #expect(try count(setup, "SELECT count(*) FROM journey_states WHERE journey_id = \(journey.id)::uuid AND entries = 1") == n)

        // Within the first hour nothing is sent: the journeys looked, twice, and every device rests.
        let looked = engine.backgroundSteps(of: "journeys")
        engine.journeyBell.ring()
        #expect(try await eventually(timeout: waitingLimit) { engine.backgroundSteps(of: "journeys") >= looked + 2 })
        #expect(try count(setup, "SELECT count(*) FROM journey_states WHERE step = 0 AND due_at > now() + interval '59 minutes'") == n)
        #expect(sink.emulator.messages().isEmpty)

        // An hour on: the welcome, an A/B split, to everyone but the holdout.
        clock.advance(minutes: 61)
        engine.journeyBell.ring()
        let sent = n - held.count
        #expect(try await eventually(timeout: waitingLimit) { sink.emulator.messages().count >= sent })
        let welcomed = sink.emulator.messages().map(\.message)
        #expect(welcomed.count == sent)
        #expect(Set(welcomed.compactMap { $0["token"]?.stringValue }) == Set((0..<n).filter { !held.contains($0) }.map(Self.token)))
        let bodies = Dictionary(grouping: welcomed, by: { $0["notification"]?["body"]?.stringValue ?? "" }).mapValues(\.count)
        #expect(Set(bodies.keys) == ["Take the tour", "10% off your first order"] && bodies.values.allSatisfy { $0 > sent / 4 }, "\(bodies)")
        #expect(welcomed.contains { $0["notification"]?["title"]?.stringValue == "Welcome, Sara" })
        #expect(welcomed.contains { $0["notification"]?["title"]?.stringValue == "Welcome, friend" })

        // A third open the welcome (as the app reports it, with the variant it got); a seventh buy.
        let welcomeCampaign = try #require(try setup.probe.connection.query("""
            SELECT campaign_id::text FROM journey_sends WHERE journey_id = \(journey.id)::uuid AND step = 1
            """).first?.decode(String.self, at: 0))
        let variants = Dictionary(uniqueKeysWithValues: try setup.probe.connection.query("""
            SELECT device_token, variant_key FROM deliveries WHERE campaign_id = \(welcomeCampaign)::uuid
            """).map { try $0.decode((String, String).self, columns: "device_token", "variant_key") })
        let opened = (0..<n).filter { $0 % 3 == 0 && !held.contains($0) }
        let bought = Set((0..<n).filter { $0 % 7 == 0 && $0 % 3 != 0 })
        _ = try events.record(["events": .array(opened.map { index in
            ["id": .string("open-\(index)"), "campaign_id": .string(welcomeCampaign), "variant": .string(variants[Self.token(index)] ?? "A"),
             "type": "open", "device_token": .string(Self.token(index))]
        })])
        _ = try events.record(["events": .array(bought.map { ["id": .string("buy-\($0)"), "event": "purchased", "device": .string(Self.token($0))] })])
        // Another campaign reaches a few who will be due a reminder: the cap (two a day) holds theirs back.
        let capped = (0..<n).filter { $0 % 3 != 0 && $0 % 7 != 0 && !held.contains($0) }.prefix(40)
        let other = try setup.schedule(["name": "Flash sale", "tokens": .array(capped.map { .string(Self.token($0)) }),
                                        "notification": ["title": "Flash sale", "body": "Today only"], "options": ["labels": "none"]])
        #expect(try await eventually(timeout: waitingLimit) { try setup.status(other) == "sent" })
        // Those who opened leave at once, woken by their open; no reminder.
        #expect(try await eventually(timeout: waitingLimit) {
            try count(setup, "SELECT count(*) FROM journey_states WHERE journey_id = \(journey.id)::uuid AND status = 'completed'")
                == opened.filter { !bought.contains($0) }.count
        })

        // A day on: the reminder, to the rest who neither opened nor bought.
        clock.advance(minutes: 24 * 60 + 2)
        engine.journeyBell.ring()
        #expect(try await eventually(timeout: waitingLimit) {
            try count(setup, "SELECT count(*) FROM journey_states WHERE journey_id = \(journey.id)::uuid AND status = 'active'") == 0
        })
        let reminderCampaign = try #require(try setup.probe.connection.query("""
            SELECT campaign_id::text FROM journey_sends WHERE journey_id = \(journey.id)::uuid AND step = 4
            """).first?.decode(String.self, at: 0))
        #expect(try await eventually(timeout: waitingLimit) {
            try count(setup, "SELECT count(*) FROM deliveries WHERE campaign_id = \(reminderCampaign)::uuid AND status IN ('pending', 'retrying')") == 0
        })
        let due = Set((0..<n).filter { $0 % 3 != 0 && !bought.contains($0) && !held.contains($0) })
        let reminded = sink.emulator.messages().map(\.message).filter { $0["notification"]?["title"]?.stringValue == "Still there?" }
        let remindedTokens = reminded.compactMap { $0["token"]?.stringValue }
        #expect(remindedTokens.count == Set(remindedTokens).count, "a device reminded twice")
        #expect(Set(remindedTokens) == Set(due.subtracting(capped).map(Self.token)))
        #expect(try count(setup, "SELECT count(*) FROM deliveries WHERE campaign_id = \(reminderCampaign)::uuid AND status = 'capped'") == capped.count)
        // No device got a step's message twice, nor anything once it bought (bought ones had only the welcome).
        let perDevice = Dictionary(grouping: sink.emulator.messages().map(\.message), by: { $0["token"]?.stringValue ?? "" })
        #expect(perDevice.values.allSatisfy { messages in Set(messages.compactMap { $0["notification"]?["title"]?.stringValue }).count == messages.count })
        for index in held { #expect(perDevice[Self.token(index)]?.contains { $0["notification"]?["title"]?.stringValue != "Flash sale" } != true) }

        // The report, from the counters and the steps' requests.
        let report = try journeys.report(journey.id)
        #expect(report.entered == sent && report.heldOut == held.count)
        #expect(report.goal == bought.subtracting(held).count && report.heldOutGoal == bought.intersection(held).count)
        #expect(report.inJourney == 0)
        let steps = Dictionary(uniqueKeysWithValues: report.steps.map { ($0.name, $0) })
        #expect(steps["settle"]?.reached == n && steps["settle"]?.waiting == 0)
        #expect(steps["welcome"]?.sent == sent && steps["welcome"]?.skipped == held.count && steps["welcome"]?.delivered == sent)
        #expect(steps["welcome"]?.opened == opened.count)
        #expect(steps["reminder"]?.sent == due.count && steps["reminder"]?.capped == capped.count
                && steps["reminder"]?.delivered == due.count - capped.count)
        #expect(report.comparison != nil)

        // One webhook event per device and happening, naming the journey, the device and why it left.
        let told = Dictionary(uniqueKeysWithValues: try setup.probe.connection.query("""
            SELECT event_type, count(*)::bigint AS n FROM webhook_deliveries GROUP BY 1
            """).map { try $0.decode((String, Int).self, columns: "event_type", "n") })
        #expect(told == ["journey.entered": n, "journey.exited": n, "journey.goal_reached": bought.count], "\(told)")
        let goal = try #require(try setup.probe.connection.query("""
            SELECT body FROM webhook_deliveries WHERE event_type = 'journey.goal_reached' LIMIT 1
            """).first?.decode(String.self, at: 0))
        let data = try JSON.parse(goal)["data"]
        #expect(data?["journey"]?["id"]?.stringValue == journey.id.description && data?["journey"]?["name"] == "Welcome")
        #expect(data?["event"] == "purchased" && data?["device"]?["token"]?.stringValue.map { bought.map(Self.token).contains($0) } == true)
    }

    /// A journey entered on joining a segment: a device enters when it comes to match the rule as
    /// it is registered, updated or imported, once; one that does not match does not.
    @Test(.timeLimit(.minutes(3)))
    func aDeviceThatComesToMatchASegmentEntersItsJourneyOnceWhetherRegisteredUpdatedOrImported() async throws {
        let sink = try EmulatorSink()
        let setup = try AudienceDeliveryTests.Setup()
        defer { setup.probe.close() }
        let journeys = JourneyService(database: setup.database, approvalsRequired: false)
        let journey = try journeys.create([
            "name": "Pro welcome", "entry": ["joins": ["all": [["property": "plan", "equals": "pro"]]]],
            "steps": [["name": "welcome", "type": "send", "message": ["notification": ["title": "Welcome to Pro"], "options": ["labels": "none"]]]],
        ], by: actor)
        _ = try journeys.publish(journey.id, expectedVersion: nil, moveDevices: false, by: actor)
        let engine = try Self.startEngine(url: setup.url, sink: sink, clock: Clock())
        defer { engine.stop() }

        _ = try setup.devices.register(token: Self.token(0), document: ["platform": "android", "properties": ["plan": "free"]])
        _ = try setup.devices.register(token: Self.token(0), document: ["platform": "android", "properties": ["plan": "pro"]])
        _ = try setup.devices.register(token: Self.token(0), document: ["platform": "android", "properties": ["plan": "pro", "seats": "3"]])
        try setup.register((1...300).map { ["token": .string(Self.token($0)), "platform": "ios", "properties": ["plan": $0 % 2 == 0 ? "pro" : "free"]] })
        let expected = Set([0] + (1...300).filter { $0 % 2 == 0 }).map(Self.token)
        #expect(try await eventually(timeout: waitingLimit) { sink.emulator.messages().count >= expected.count })
        let received = sink.emulator.messages().compactMap { $0.message["token"]?.stringValue }
        #expect(received.count == expected.count && Set(received) == Set(expected))
        #expect(try count(setup, "SELECT count(*) FROM journey_states WHERE entries = 1") == expected.count)
        #expect(try journeys.report(journey.id).entered == expected.count)
    }
}
