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

    /// The devices of a step's campaign with this outcome (sent, capped, …), as its runs count them.
    func outcome(_ setup: AudienceDeliveryTests.Setup, campaign: String, _ outcome: String) throws -> Int {
        try count(setup, "SELECT coalesce(sum(c.n), 0)::bigint FROM run_counts c JOIN runs r ON r.id = c.run_id WHERE r.campaign_id = \(campaign)::uuid AND c.outcome = \(outcome)")
    }

    /// Whether a step's campaign has devices still to send.
    func sending(_ setup: AudienceDeliveryTests.Setup, campaign: String) throws -> Bool {
        try count(setup, "SELECT count(*) FROM device_batches WHERE campaign_id = \(campaign)::uuid AND status = 'pending'") > 0
    }

    /// The devices of the welcome journey: 1,000 in the suite; `HERALD_JOURNEY_TEST_DEVICES=100000`
    /// runs it at the size (a few minutes on this machine).
    static let welcomeDevices = ProcessInfo.processInfo.environment["HERALD_JOURNEY_TEST_DEVICES"].flatMap { Int($0) } ?? 1000

    @Test(.timeLimit(.minutes(10)))
    func aWelcomeJourneySendsEachStepOnceByEveryRuleAndNothingToItsHoldoutOrAfterTheGoal() async throws {
        let sink = try EmulatorSink()
        let setup = try AudienceDeliveryTests.Setup()
        defer { setup.probe.close() }
        let n = Self.welcomeDevices
        let started = ContinuousClock.now
        // The suite's limit is for a thousand devices' sends; a hundred thousand take a hundred times as long.
        let limit = waitingLimit * max(1, n / 1000)
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
        #expect((n / 20...3 * n / 20).contains(held.count), "\(held.count) of \(n) held out")
        #expect(try count(setup, "SELECT count(*) FROM journey_states WHERE journey_id = \(journey.id)::uuid AND entries = 1") == n)

        // Within the first hour nothing is sent: the journeys looked, twice, and every device rests.
        let looked = engine.backgroundSteps(of: "journeys")
        engine.journeyBell.ring()
        #expect(try await eventually(timeout: limit) { engine.backgroundSteps(of: "journeys") >= looked + 2 })
        #expect(try count(setup, "SELECT count(*) FROM journey_states WHERE step = 0 AND due_at > now() + interval '59 minutes'") == n)
        #expect(sink.emulator.messages().isEmpty)

        // An hour on: the welcome, an A/B split, to everyone but the holdout.
        clock.advance(minutes: 61)
        engine.journeyBell.ring()
        let sent = n - held.count
        #expect(try await eventually(timeout: limit) { sink.emulator.messages().count >= sent })
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
            SELECT device_token, last_variant FROM journey_states WHERE journey_id = \(journey.id)::uuid AND last_variant IS NOT NULL
            """).map { try $0.decode((String, String).self, columns: "device_token", "last_variant") })
        #expect(variants.count == sent)
        // Every welcome answered by FCM (recorded as sent) before anyone buys: a goal counts as its conversion.
        #expect(try await eventually(timeout: limit) {
            try outcome(setup, campaign: welcomeCampaign, "sent") == sent
        })
        let opened = (0..<n).filter { $0 % 3 == 0 && !held.contains($0) }
        let bought = Set((0..<n).filter { $0 % 7 == 0 && $0 % 3 != 0 })
        func post(_ all: [JSON]) throws {
            for start in stride(from: 0, to: all.count, by: 500) { _ = try events.record(["events": .array(Array(all[start..<min(all.count, start + 500)]))]) }
        }
        try post(opened.map { index in
            ["id": .string("open-\(index)"), "campaign_id": .string(welcomeCampaign), "variant": .string(variants[Self.token(index)] ?? "A"),
             "type": "open", "device_token": .string(Self.token(index))]
        })
        try post(bought.sorted().map { ["id": .string("buy-\($0)"), "event": "purchased", "device": .string(Self.token($0))] })
        // Another campaign reaches a few who will be due a reminder: the cap (two a day) holds theirs back.
        let capped = (0..<n).filter { $0 % 3 != 0 && $0 % 7 != 0 && !held.contains($0) }.prefix(40)
        let other = try setup.schedule(["name": "Flash sale", "tokens": .array(capped.map { .string(Self.token($0)) }),
                                        "notification": ["title": "Flash sale", "body": "Today only"], "options": ["labels": "none"]])
        #expect(try await eventually(timeout: limit) { try setup.status(other) == "sent" })
        // Those who opened leave at once, woken by their open; no reminder.
        #expect(try await eventually(timeout: limit) {
            try count(setup, "SELECT count(*) FROM journey_states WHERE journey_id = \(journey.id)::uuid AND status = 'completed'")
                == opened.filter { !bought.contains($0) }.count
        })

        // A day on: the reminder, to the rest who neither opened nor bought.
        clock.advance(minutes: 24 * 60 + 2)
        engine.journeyBell.ring()
        #expect(try await eventually(timeout: limit) {
            try count(setup, "SELECT count(*) FROM journey_states WHERE journey_id = \(journey.id)::uuid AND status = 'active'") == 0
        })
        let reminderCampaign = try #require(try setup.probe.connection.query("""
            SELECT campaign_id::text FROM journey_sends WHERE journey_id = \(journey.id)::uuid AND step = 4
            """).first?.decode(String.self, at: 0))
        #expect(try await eventually(timeout: limit) {
            try !sending(setup, campaign: reminderCampaign)
        })
        let due = Set((0..<n).filter { $0 % 3 != 0 && !bought.contains($0) && !held.contains($0) })
        let reminded = sink.emulator.messages().map(\.message).filter { $0["notification"]?["title"]?.stringValue == "Still there?" }
        let remindedTokens = reminded.compactMap { $0["token"]?.stringValue }
        #expect(remindedTokens.count == Set(remindedTokens).count, "a device reminded twice")
        #expect(Set(remindedTokens) == Set(due.subtracting(capped).map(Self.token)))
        #expect(try outcome(setup, campaign: reminderCampaign, "capped") == capped.count)
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
        // Each purchase of a device sent the welcome (and not yet the reminder) is the welcome's conversion.
        #expect(steps["welcome"]?.converted == bought.subtracting(held).count && steps["reminder"]?.converted == 0)
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
        print("welcome journey: \(n) devices, \(held.count) held out, \(sink.emulator.messages().count) messages at FCM "
              + "(\(reminded.count) reminders, \(capped.count) capped), \(bought.count) reached the goal, in \(ContinuousClock.now - started)")
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

    /// A send step's A/B test calls its winner on its own: devices reaching the step split between
    /// the variants until the deadline, the variant they open more is called, and those who come
    /// after get it alone. A goal reached counts as a conversion of the variant the device was sent.
    @Test(.timeLimit(.minutes(5)))
    func aSendStepsTestCallsItsWinnerForTheDevicesThatComeAfterAndTheGoalCountsAsItsConversion() async throws {
        let sink = try EmulatorSink()
        let setup = try AudienceDeliveryTests.Setup()
        defer { setup.probe.close() }
        try setup.register((0..<1000).map { ["token": .string(Self.token($0)), "platform": "android"] })
        let journeys = JourneyService(database: setup.database, approvalsRequired: false)
        let events = EventService(database: setup.database, journeys: JourneyEvents())
        let journey = try journeys.create([
            "name": "Offer", "entry": ["event": "browsed"], "goal": ["event": "purchased"],
            "steps": [["name": "offer", "type": "send", "message": [
                "notification": ["title": "An offer"],
                "variants": [["key": "A", "weight": 1, "notification": ["body": "Free shipping"]],
                             ["key": "B", "weight": 1, "notification": ["body": "20% off"]]],
                "auto_winner": ["after_minutes": 60, "metric": "opens", "confidence": 90],
                "options": ["labels": "none"],
            ]], ["name": "linger", "type": "wait", "minutes": 10080]],
        ], by: actor)
        #expect(try journeys.get(journey.id).draft.toJSON()["steps"]?.arrayValue?.first?["message"]?["auto_winner"]?["after_minutes"] == 60)
        _ = try journeys.publish(journey.id, expectedVersion: nil, moveDevices: false, by: actor)
        let clock = Clock()
        let engine = try Self.startEngine(url: setup.url, sink: sink, clock: clock)
        defer { engine.stop() }
        func browse(_ range: Range<Int>) throws {
            for start in stride(from: range.lowerBound, to: range.upperBound, by: 500) {
                _ = try events.record(["events": .array((start..<min(range.upperBound, start + 500)).map {
                    ["id": .string("browse-\($0)"), "event": "browsed", "device": .string(Self.token($0))]
                })])
            }
        }
        func bodies() -> [String: String] {
            Dictionary(sink.emulator.messages().map { ($0.message["token"]?.stringValue ?? "", $0.message["notification"]?["body"]?.stringValue ?? "") },
                       uniquingKeysWith: { first, _ in first })
        }

        // The test: the first 800 split between the variants; all those sent B open it, half of those sent A
        // (the test needs a hundred opens of each).
        try browse(0..<800)
        #expect(try await eventually(timeout: waitingLimit) { sink.emulator.messages().count >= 800 })
        let campaign = try #require(try setup.probe.connection.query("""
            SELECT campaign_id::text FROM journey_sends WHERE journey_id = \(journey.id)::uuid AND step = 0
            """).first?.decode(String.self, at: 0))
        #expect(try await eventually(timeout: waitingLimit) {
            try outcome(setup, campaign: campaign, "sent") == 800
        })
        let tested = bodies()
        let sentA = (0..<800).filter { tested[Self.token($0)] == "Free shipping" }
        let sentB = (0..<800).filter { tested[Self.token($0)] == "20% off" }
        #expect(sentA.count + sentB.count == 800 && (300...500).contains(sentB.count), "\(sentB.count) of 800 sent B")
        let opens = sentB.map { ($0, "B") } + sentA.enumerated().filter { $0.offset % 2 == 0 }.map { ($0.element, "A") }
        for start in stride(from: 0, to: opens.count, by: 500) {
            _ = try events.record(["events": .array(opens[start..<min(opens.count, start + 500)].map { index, variant in
                ["id": .string("open-\(index)"), "campaign_id": .string(campaign), "variant": .string(variant), "type": "open", "device_token": .string(Self.token(index))]
            })])
        }
        // Before its deadline nothing is called.
        let looked = engine.backgroundSteps(of: "journeys")
        engine.journeyBell.ring()
        #expect(try await eventually(timeout: waitingLimit) { engine.backgroundSteps(of: "journeys") >= looked + 2 })
        #expect(try count(setup, "SELECT count(*) FROM winner_decisions") == 0)

        // An hour on, B is called; the next hundred to arrive are sent B alone.
        clock.advance(minutes: 61)
        engine.journeyBell.ring()
        #expect(try await eventually(timeout: waitingLimit) { try count(setup, "SELECT count(*) FROM winner_decisions WHERE variant = 'B'") == 1 })
        try browse(800..<1000)
        #expect(try await eventually(timeout: waitingLimit) { sink.emulator.messages().count >= 1000 })
        let after = bodies()
        #expect((800..<1000).allSatisfy { after[Self.token($0)] == "20% off" })
        #expect(sink.emulator.messages().count == 1000)

        // Two sent B and one sent A buy: three conversions of the step, each of the variant it was sent.
        #expect(try await eventually(timeout: waitingLimit) {
            try outcome(setup, campaign: campaign, "sent") == 1000
        })
        let buyers = [sentB[0], 800, sentA[0]]
        _ = try events.record(["events": .array(buyers.map { ["id": .string("buy-\($0)"), "event": "purchased", "device": .string(Self.token($0))] })])
        let conversions = Dictionary(uniqueKeysWithValues: try setup.probe.connection.query("""
            SELECT variant, count(*)::bigint AS n FROM events WHERE campaign_id = \(campaign)::uuid AND type = 'conversion' GROUP BY 1
            """).map { try $0.decode((String, Int).self, columns: "variant", "n") })
        #expect(conversions == ["A": 1, "B": 2])
        #expect(try count(setup, "SELECT count(*) FROM journey_states WHERE status = 'goal'") == 3)
        let step = try #require(try journeys.report(journey.id).steps.first)
        #expect(step.sent == 1000 && step.opened == opens.count && step.converted == 3)
        #expect(step.winner?.decision.variantToSend == "B" && step.winner?.decision.won == true)
        #expect(try count(setup, "SELECT count(*) FROM audit_log WHERE action = 'campaign.winner_decided'") == 1)
    }

    /// A journey entered as a date property comes due: "renewal_date" minus 3 days at 10:00 in each
    /// device's zone. The moments are written when the journey is published and again as devices
    /// change; a device enters once its moment comes (on the clock the journeys move by), once.
    @Test(.timeLimit(.minutes(3)))
    func aDatePropertyComingDueEntersEachDeviceAtTenInItsOwnZoneOnce() async throws {
        let sink = try EmulatorSink()
        let setup = try AudienceDeliveryTests.Setup()
        defer { setup.probe.close() }
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        func day(_ offset: Int) -> String {
            let parts = utc.dateComponents([.year, .month, .day], from: Date().addingTimeInterval(Double(offset) * 86_400))
            return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
        }
        /// 10:00 on the day three before `date`, in `zone`.
        func due(_ date: String, _ zone: String) -> Date {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: zone)!
            let parts = date.split(separator: "-").map { Int($0)! }
            let renewal = calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2], hour: 10))!
            return calendar.date(byAdding: .day, value: -3, to: renewal)!
        }
        let renewal = day(5)
        try setup.register([
            ["token": .string(Self.token(0)), "platform": "android", "time_zone": "Asia/Tehran", "properties": ["renewal_date": .string(renewal)]],
            ["token": .string(Self.token(1)), "platform": "android", "time_zone": "America/New_York", "properties": ["renewal_date": .string(renewal)]],
            ["token": .string(Self.token(2)), "platform": "android", "properties": ["renewal_date": .string(renewal)]],
            ["token": .string(Self.token(3)), "platform": "android", "properties": ["renewal_date": "soon"]],
            ["token": .string(Self.token(4)), "platform": "android", "properties": ["renewal_date": .string(day(-10))]],
            ["token": .string(Self.token(5)), "platform": "android", "properties": ["renewal_date": .string(renewal + "T08:00:00Z")]],
            ["token": .string(Self.token(6)), "platform": "android"],
            ["token": .string(Self.token(8)), "platform": "android", "properties": ["renewal_date": "2027-02-30"]],
        ])
        let journeys = JourneyService(database: setup.database, approvalsRequired: false)
        let journey = try journeys.create([
            "name": "Renewal", "entry": ["date": ["property": "renewal_date", "offset_days": -3, "at": "10:00"]],
            "steps": [["name": "remind", "type": "send", "message": ["notification": ["title": "Your plan renews in 3 days"], "options": ["labels": "none"]]]],
        ], by: actor)
        _ = try journeys.publish(journey.id, expectedVersion: nil, moveDevices: false, by: actor)
        func moments() throws -> [String: Date] {
            Dictionary(uniqueKeysWithValues: try setup.probe.connection.query("""
                SELECT device_token, due_at FROM journey_dates WHERE journey_id = \(journey.id)::uuid
                """).map { try $0.decode((String, Date).self, columns: "device_token", "due_at") })
        }
        // Each at 10:00 in its own zone (UTC without one; a time's date as written); no date, a past one or none: nothing.
        let expected = [Self.token(0): due(renewal, "Asia/Tehran"), Self.token(1): due(renewal, "America/New_York"),
                        Self.token(2): due(renewal, "UTC"), Self.token(5): due(renewal, "UTC")]
        #expect(try moments() == expected)

        // Written again as devices change: one registered now, one moved a week on.
        _ = try setup.devices.register(token: Self.token(7), document: ["platform": "ios", "time_zone": "Asia/Tehran", "properties": ["renewal_date": .string(renewal)]])
        _ = try setup.devices.register(token: Self.token(1), document: ["platform": "android", "time_zone": "America/New_York",
                                                                        "properties": ["renewal_date": .string(day(12))]])
        _ = try setup.devices.register(token: Self.token(2), document: ["platform": "android", "properties": ["plan": "free"]])
        var now = try moments()
        #expect(now[Self.token(7)] == due(renewal, "Asia/Tehran") && now[Self.token(1)] == due(day(12), "America/New_York") && now[Self.token(2)] == nil)

        let clock = Clock()
        let engine = try Self.startEngine(url: setup.url, sink: sink, clock: clock)
        defer { engine.stop() }
        // Tehran's 10:00 comes first: its two devices, and no one else.
        clock.advance(minutes: due(renewal, "Asia/Tehran").timeIntervalSinceNow / 60 + 1)
        engine.journeyBell.ring()
        #expect(try await eventually(timeout: waitingLimit) { sink.emulator.messages().count >= 2 })
        #expect(Set(sink.emulator.messages().compactMap { $0.message["token"]?.stringValue }) == [Self.token(0), Self.token(7)])
        // UTC's 10:00: the device whose date was a time.
        clock.advance(minutes: (due(renewal, "UTC").timeIntervalSinceNow - due(renewal, "Asia/Tehran").timeIntervalSinceNow) / 60)
        engine.journeyBell.ring()
        #expect(try await eventually(timeout: waitingLimit) { sink.emulator.messages().count >= 3 })
        #expect(sink.emulator.messages().compactMap { $0.message["token"]?.stringValue }.last == Self.token(5))

        // Once: a device that entered and is given a new date gets a moment again, and does not enter again.
        _ = try setup.devices.register(token: Self.token(0), document: ["platform": "android", "time_zone": "Asia/Tehran",
                                                                        "properties": ["renewal_date": .string(day(13))]])
        now = try moments()
        #expect(now[Self.token(0)] == due(day(13), "Asia/Tehran"))
        clock.advance(minutes: 11 * 24 * 60)
        engine.journeyBell.ring()
        #expect(try await eventually(timeout: waitingLimit) { try moments().isEmpty })
        #expect(try await eventually(timeout: waitingLimit) { sink.emulator.messages().count >= 4 })
        let received = sink.emulator.messages().compactMap { $0.message["token"]?.stringValue }
        #expect(received.sorted() == [0, 1, 5, 7].map(Self.token).sorted(), "each device once, on its own day")
        #expect(try count(setup, "SELECT count(*) FROM journey_states WHERE journey_id = \(journey.id)::uuid") == 4)
        #expect(try journeys.report(journey.id).entered == 4)
    }
}
