import FCMEmulator
import Foundation
import HeraldCore
import HeraldJSON
import HeraldPostgres
import HeraldTestSupport
import Testing
@testable import HeraldApp

/// The latest-delivery time, sending hours and spread with a real engine and the emulator. The
/// clock is moved by setting a run's times in the database, as the scheduler would have.
@Suite(.serialized) struct DeliveryControlsIntegrationTests {
    let actor = Actor(name: "publisher@example.com", address: "127.0.0.1")

    func create(_ campaigns: CampaignService, _ json: JSON) throws -> CampaignRecord {
        try campaigns.create(try CampaignService.validated(json), by: actor, now: Date())
    }

    func withDelivery(_ name: String, topics: Int, _ delivery: JSON) -> JSON {
        var object = campaignJSON(name: name, topics: (0..<topics).map { "\(name.lowercased().replacingOccurrences(of: " ", with: "-"))-\($0)" }).objectValue!
        object["delivery"] = delivery
        return .object(object)
    }

    @Test(.timeLimit(.minutes(5)))
    func requestsNotSentByTheLatestDeliveryTimeAreExpiredAndNeverSent() async throws {
        let harness = try TestApplication()
        let campaigns = harness.app.campaigns
        let sink = try EmulatorSink()
        let record = try create(campaigns, withDelivery("Late show", topics: 50, ["latest_delivery_minutes": 30]))
        _ = try campaigns.publishNow(record.id, expectedVersion: record.version, by: actor, now: Date())
        let connection = try PostgresConnection(url: harness.databaseURL)
        defer { connection.close() }
        #expect(try RunStarter(buckets: AudienceBuckets()).startDueRuns(limit: 10, now: Date(), on: connection).first?.deliveries == 10)
        #expect(try harness.count("SELECT count(*) FROM runs WHERE expires_at BETWEEN now() + interval '29 minutes' AND now() + interval '31 minutes'") == 1)
        // Two requests went out in time.
        let store = DeliveryStore()
        for _ in 0..<2 {
            let round = try store.claim(owner: "earlier", limit: 1, lease: .seconds(60), on: connection)
            try store.record(round.map { DeliveryStore.Outcome(id: $0.id, status: .sent, messageName: "m") }, owner: "earlier",
                             runIDs: Set(round.map(\.runID)), on: connection)
        }
        // Thirty minutes pass before the workers get to the rest.
        try harness.execute("UPDATE runs SET expires_at = now()")
        let engine = try DeliveryOutboxTests.startEngine(url: harness.databaseURL, sink: sink)
        defer { engine.stop() }
        #expect(try await eventually(timeout: waitingLimit) { try campaigns.get(record.id).status == .partiallyFailed })
        #expect(try harness.count("SELECT count(*) FROM deliveries WHERE status = 'expired'") == 8)
        #expect(try await engine.looksAgain(waking: harness.databaseURL))
        #expect(sink.emulator.sendAttempts().isEmpty)  // nothing late reached FCM
        let runs = try campaigns.runs(record.id)
        let variantA = runs.first?.variants.first { $0.key == "A" }?.counts
        #expect(variantA?.expired == 8)
        #expect(variantA?.sent == 2)
        #expect(runs.first?.status == .partiallyFailed)
        #expect(runs.first?.expiresAt != nil)
    }

    @Test(.timeLimit(.minutes(5)))
    func aRunSendsOnlyInsideItsSendingHoursAndWaitsForTheNextStretch() async throws {
        let harness = try TestApplication()
        let campaigns = harness.app.campaigns
        let sink = try EmulatorSink(faults: FaultInjection(slow: 1, slowDelay: .milliseconds(200)))
        // Sending hours that are not now: two to three hours ahead, in UTC.
        let hour = Calendar(identifier: .gregorian).dateComponents(in: .gmt, from: Date()).hour!
        let window: JSON = ["start": .string(String(format: "%02d:00", (hour + 2) % 24)), "end": .string(String(format: "%02d:00", (hour + 3) % 24)),
                            "time_zone": "UTC"]
        let record = try create(campaigns, withDelivery("Morning news", topics: 50, ["window": window]))
        _ = try campaigns.publishNow(record.id, expectedVersion: record.version, by: actor, now: Date())
        let engine = try DeliveryOutboxTests.startEngine(url: harness.databaseURL, sink: sink)
        defer { engine.stop() }
        #expect(try await eventually(timeout: waitingLimit) { try harness.count("SELECT count(*) FROM runs") == 1 })
        #expect(try await engine.looksAgain(waking: harness.databaseURL))
        #expect(sink.emulator.sendAttempts().isEmpty)  // outside its hours: nothing goes out
        let waiting = try #require(try campaigns.runs(record.id).first?.window?.opensAt)
        #expect(waiting > Date())

        engine.stop()
        #expect(engine.waitUntilStopped(timeout: .seconds(10)))

        // The clock reaches the stretch's start: a worker may claim (one request of the run at a time).
        let connection = try PostgresConnection(url: harness.databaseURL)
        defer { connection.close() }
        let store = DeliveryStore()
        try harness.execute("UPDATE runs SET window_opens_at = now(), window_closes_at = now() + interval '1 hour'")
        let round = try store.claim(owner: "w", limit: 32, lease: .seconds(60), on: connection)
        #expect(round.count == 1)
        try store.record(round.map { DeliveryStore.Outcome(id: $0.id, status: .sent, messageName: "m") }, owner: "w",
                         runIDs: Set(round.map(\.runID)), on: connection)
        // The stretch closes: nothing more is claimed, and the scheduler moves the run on to the
        // next stretch of its hours, two hours or more ahead; until then no worker is woken for it.
        try harness.execute("UPDATE runs SET window_closes_at = now()")
        #expect(try store.claim(owner: "w", limit: 32, lease: .seconds(60), on: connection).isEmpty)
        try RunStarter(buckets: AudienceBuckets()).applyDeliveryControls(now: Date(), on: connection)
        #expect(try harness.count("SELECT count(*) FROM runs WHERE window_opens_at > now() + interval '1 hour'") == 1)
        #expect(try store.claim(owner: "w", limit: 32, lease: .seconds(60), on: connection).isEmpty)
        #expect(try store.secondsUntilNextDelivery(on: connection).map { $0 > 3600 } == true)
        #expect(try campaigns.get(record.id).status == .sending)
        #expect(try harness.count("SELECT count(*) FROM deliveries WHERE status = 'pending'") == 9)
    }

    @Test(.timeLimit(.minutes(5)))
    func aSpreadCampaignsRequestsFallDueOneSpacingApart() throws {
        let harness = try TestApplication()
        let campaigns = harness.app.campaigns
        let record = try create(campaigns, withDelivery("Gentle", topics: 50, ["max_per_minute": 6]))
        _ = try campaigns.publishNow(record.id, expectedVersion: record.version, by: actor, now: Date())
        let url = harness.databaseURL
        let connection = try PostgresConnection(url: url)
        defer { connection.close() }
        #expect(try RunStarter(buckets: AudienceBuckets()).startDueRuns(limit: 10, now: Date(), on: connection).first?.deliveries == 10)
        // Six a minute: ten seconds apart, the last 90 seconds after the first.
        let gaps = try connection.query("""
            SELECT extract(epoch FROM next_attempt_at - lag(next_attempt_at) OVER (ORDER BY id))::float8 FROM deliveries ORDER BY id
            """).compactMap { try $0.decode(Double?.self, at: 0) }
        #expect(gaps.count == 9 && gaps.allSatisfy { abs($0 - 10) < 0.01 })
        #expect(try DeliveryStore().claim(owner: "w", limit: 10, lease: .seconds(60), on: connection).count == 1)
        #expect(try DeliveryStore().secondsUntilNextDelivery(on: connection).map { $0 > 50 } == true)  // held by the lease
    }

    /// A run to devices is spread too: thirty devices over one minute fall due two seconds apart,
    /// so the workers' claims (by due time) take them one spacing at a time.
    @Test(.timeLimit(.minutes(5)))
    func aRunToDevicesSpreadOverAMinuteFallsDueEvenlyAcrossIt() throws {
        let harness = try TestApplication()
        let tokens = (0..<30).map { "spread-\($0):" + String(repeating: "s", count: 140) }
        for token in tokens { _ = try harness.app.devices.register(token: token, document: ["platform": "android"]) }
        let json: JSON = ["name": "Spread", "notification": ["title": "Slowly"], "tokens": .array(tokens.map(JSON.string)),
                          "delivery": ["spread_minutes": 1]]
        let record = try create(harness.app.campaigns, json)
        _ = try harness.app.campaigns.publishNow(record.id, expectedVersion: record.version, by: actor, now: Date())
        let connection = try PostgresConnection(url: harness.databaseURL)
        defer { connection.close() }
        #expect(try RunStarter(buckets: AudienceBuckets()).startDueRuns(limit: 10, now: Date(), on: connection).first?.deliveries == 30)
        let gaps = try connection.query("""
            SELECT extract(epoch FROM next_attempt_at - lag(next_attempt_at) OVER (ORDER BY next_attempt_at))::float8 FROM deliveries
            """).compactMap { try $0.decode(Double?.self, at: 0) }
        #expect(gaps.count == 29 && gaps.allSatisfy { abs($0 - 2) < 0.01 })
        #expect(try DeliveryStore().claim(owner: "w", limit: 10, deviceLimit: 100, lease: .seconds(60), on: connection).count == 1)
    }

    /// `max_per_minute` holds for a campaign to a segment too (it was sent streamed, all at once:
    /// six of six requests within 50 ms): its requests fall due one spacing apart, and a claim takes
    /// only what is due.
    @Test(.timeLimit(.minutes(5)))
    func aSegmentCampaignWithAMaximumPerMinuteIsSpacedToIt() throws {
        let harness = try TestApplication()
        let tokens = (0..<6).map { "paced-\($0):" + String(repeating: "p", count: 140) }
        for token in tokens { _ = try harness.app.devices.register(token: token, document: ["platform": "android"]) }
        let segment = try harness.app.segments.create(["name": "Paced", "rule": ["all": [["field": "platform", "in": ["android"]]]]], by: actor)
        let json: JSON = ["name": "Paced", "notification": ["title": "Slowly"], "segment": .string(segment.id.description),
                          "delivery": ["max_per_minute": 60]]
        let record = try create(harness.app.campaigns, json)
        _ = try harness.app.campaigns.publishNow(record.id, expectedVersion: record.version, by: actor, now: Date())
        let connection = try PostgresConnection(url: harness.databaseURL)
        defer { connection.close() }
        let starter = RunStarter(buckets: AudienceBuckets())
        #expect(try starter.startDueRuns(limit: 10, now: Date(), on: connection).count == 1)
        while try starter.planRuns(limit: 10, on: connection) > 0 {}
        #expect(try harness.count("SELECT count(*) FROM runs WHERE streamed") == 0)
        let gaps = try connection.query("""
            SELECT extract(epoch FROM next_attempt_at - lag(next_attempt_at) OVER (ORDER BY next_attempt_at))::float8 FROM deliveries
            """).compactMap { try $0.decode(Double?.self, at: 0) }
        #expect(gaps.count == 5 && gaps.allSatisfy { abs($0 - 1) < 0.01 }, "\(gaps)")
        #expect(try DeliveryStore().claim(owner: "w", limit: 10, deviceLimit: 100, lease: .seconds(60), on: connection).count == 1)
    }

    /// Paused for a minute, a spread run (fifty topics in ten requests, six a minute) would send what fell due meanwhile at
    /// once; resumed, it goes on at its spread: the first now, the rest ten seconds apart.
    @Test(.timeLimit(.minutes(5)))
    func aSpreadRunResumedAfterAPauseGoesOnAtItsSpreadNotInABurst() throws {
        let harness = try TestApplication()
        let campaigns = harness.app.campaigns
        let record = try create(campaigns, withDelivery("Paced", topics: 50, ["max_per_minute": 6]))
        var current = try campaigns.publishNow(record.id, expectedVersion: record.version, by: actor, now: Date())
        let connection = try PostgresConnection(url: harness.databaseURL)
        defer { connection.close() }
        #expect(try RunStarter(buckets: AudienceBuckets()).startDueRuns(limit: 10, now: Date(), on: connection).first?.deliveries == 10)
        current = try campaigns.pause(record.id, expectedVersion: current.version, by: actor)
        // A minute passes while it is paused: the first seven fall due.
        _ = try connection.execute("UPDATE deliveries SET next_attempt_at = next_attempt_at - interval '61 seconds'")
        #expect(try connection.query("SELECT count(*) FROM deliveries WHERE next_attempt_at <= now()").first?.decode(Int.self, at: 0) == 7)
        _ = try campaigns.resume(record.id, expectedVersion: current.version, by: actor)
        let due = try connection.query("""
            SELECT extract(epoch FROM next_attempt_at - now())::float8 FROM deliveries ORDER BY next_attempt_at
            """).map { try $0.decode(Double.self, at: 0) }
        #expect(abs(due[0]) < 1)
        #expect(zip(due, due.dropFirst()).allSatisfy { abs($1 - $0 - 10) < 0.01 })
        #expect(try DeliveryStore().claim(owner: "w", limit: 10, lease: .seconds(60), on: connection).count == 1)
    }
}
