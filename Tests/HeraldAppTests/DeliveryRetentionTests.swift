import Foundation
import HeraldCore
import HeraldJSON
import HeraldPostgres
import HeraldTestSupport
import Testing
@testable import HeraldApp

/// HERALD_DELIVERY_RETENTION_DAYS: a finished run is folded into its counts, and its requests and
/// failed devices are dropped with their partition once the period is over, while every figure the
/// report and the list show stays as it was.
@Suite(.serialized) struct DeliveryRetentionTests {
    let actor = Actor(name: "marketer@example.com")

    /// What the report and the campaign list show of a campaign's sending.
    struct Figures: Equatable {
        var runs: [RunProgress]
        var summary: CampaignSummary?
        var hours: [CampaignReport.Hour]
        var reached: Int
        var failed: Int

        init(_ campaign: String, on connection: PostgresConnection) throws {
            let id = try #require(CampaignID(campaign))
            let progress = ProgressStore()
            runs = try progress.runs(campaignID: id, on: connection)
            summary = try progress.summaries(campaignIDs: [id], on: connection)[id]
            hours = try progress.hours(campaignID: id, on: connection)
            let reach = try progress.deviceReach(campaignID: id, on: connection)
            (reached, failed) = (reach.reached, reach.failed)
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func detailIsDroppedAPartitionAtATimeAndTheReportStaysTheSame() async throws {
        let tokens = (0..<60).map(AudienceDeliveryTests.token)
        let dead = Set(tokens.prefix(6))
        let sink = try EmulatorSink(handlerThreads: 8, unregistered: dead)
        let setup = try AudienceDeliveryTests.Setup()
        defer { setup.probe.close() }
        try setup.register(tokens.map { ["token": .string($0), "platform": "android"] })
        let segment = try setup.segments.create(["name": "Everyone", "rule": ["all": [["field": "platform", "equals": "android"]]]], by: actor)
        let engine = try DeliveryOutboxTests.startEngine(url: setup.url, sink: sink)
        defer { engine.stop(); engine.waitUntilStopped(timeout: .seconds(10)) }
        // The engine's own retention pass runs as it starts; the test's passes below come after
        // it, not beside it (two passes at once may deadlock, which the service would retry).
        #expect(try await eventually(timeout: waitingLimit) { engine.backgroundSteps(of: "delivery-retention") > 0 })

        // A streamed run to devices (its failed devices are detail) and a run to a topic (its requests are).
        let devices = try setup.schedule(["name": "To devices", "notification": ["title": "One"], "segment": .string(segment.id.description)])
        let topic = try setup.schedule(["name": "To a topic", "notification": ["title": "Two"], "topics": ["news"]])
        #expect(try await eventually(timeout: waitingLimit) { try setup.status(devices) == "partially_failed" && setup.status(topic) == "sent" })
        // The runs finished 31 days ago, in a range opened 8 days ago.
        let connection = setup.probe.connection
        _ = try connection.execute("UPDATE runs SET finished_at = now() - interval '31 days'")
        let before = try [devices, topic].map { try Figures($0, on: connection) }
        #expect(before[0].reached == 54 && before[0].failed == 6 && before[1].summary?.requestsSent == 1)
        #expect(try setup.probe.count("SELECT count(*) FROM delivery_failures") == 6)
        #expect(try setup.probe.count("SELECT count(*) FROM deliveries") == 1)

        // They are folded, and a new range is opened; the old one is kept until the new one has
        // been open an hour.
        _ = try connection.execute("UPDATE delivery_partitions SET opened_at = now() - interval '8 days'")
        let retention = DeliveryRetention(days: 30)
        #expect(try retention.apply(on: connection) == DeliveryRetention.Pass(folded: 2, opened: 1, dropped: []))
        #expect(try [devices, topic].map { try Figures($0, on: connection) } == before)

        _ = try connection.execute("UPDATE delivery_partitions SET opened_at = now() - interval '2 hours' WHERE k = 1")
        #expect(try retention.apply(on: connection) == DeliveryRetention.Pass(folded: 0, opened: nil, dropped: [0]))
        #expect(try setup.probe.count("SELECT count(*) FROM deliveries") == 0)
        #expect(try setup.probe.count("SELECT count(*) FROM delivery_failures") == 0)
        #expect(try setup.probe.count("SELECT count(*) FROM pg_class WHERE relname IN ('deliveries_0', 'delivery_failures_0')") == 0)
        #expect(try [devices, topic].map { try Figures($0, on: connection) } == before)

        // What is sent next is written in the new range, after every id before (cursors keep their order),
        // and a range holding a run finished within the period is kept.
        let later = try setup.schedule(["name": "Later", "notification": ["title": "Three"], "topics": ["news"]])
        #expect(try await eventually(timeout: waitingLimit) { try setup.status(later) == "sent" })
        #expect(try setup.probe.count("SELECT min(id) FROM deliveries") > Int(DeliveryRetention.span))
        _ = try connection.execute("UPDATE delivery_partitions SET opened_at = now() - interval '8 days' WHERE k = 1")
        #expect(try retention.apply(on: connection).opened == 2)
        _ = try connection.execute("UPDATE delivery_partitions SET opened_at = now() - interval '2 hours' WHERE k = 2")
        #expect(try retention.apply(on: connection).dropped == [])
        #expect(try setup.probe.count("SELECT count(*) FROM deliveries") == 1)
    }
}

/// Two retention passes at once (a leader's, and the next leader's as it starts) fold a run once.
@Suite(.serialized) struct DeliveryFoldRaceTests {
    @Test(.timeLimit(.minutes(3)))
    func aRunTwoPassesFoldAtOnceIsCountedOnce() async throws {
        let sink = try EmulatorSink()
        let setup = try AudienceDeliveryTests.Setup()
        defer { setup.probe.close() }
        let engine = try DeliveryOutboxTests.startEngine(url: setup.url, sink: sink)
        let topic = try setup.schedule(["name": "To a topic", "notification": ["title": "Once"], "topics": ["news"]])
        #expect(try await eventually(timeout: waitingLimit) { try setup.status(topic) == "sent" })
        // Its own retention service is not a third pass: the engine is stopped first, its threads joined.
        engine.stop()
        #expect(try await offThePool { engine.waitUntilStopped(timeout: waitingLimit) })
        _ = try setup.probe.connection.execute("UPDATE runs SET finished_at = now() - interval '2 hours'")

        // One pass is folding the run, its transaction still open.
        let first = try PostgresConnection(url: setup.url)
        defer { first.close() }
        _ = try first.execute("BEGIN")
        _ = try first.query("SELECT herald_fold_runs(ARRAY(SELECT id FROM runs WHERE NOT folded))")
        // The other pass, meanwhile: it may skip the run or wait for it, not count it again.
        let second = try PostgresConnection(url: setup.url)
        defer { second.close() }
        let pid = second.backendPID
        let secondPass = Unchecked(second)
        async let folded = offThePool { try DeliveryRetention(days: 30).fold(on: secondPass.value) }
        #expect(try await eventually(timeout: waitingLimit) {
            try setup.probe.connection.query("""
                SELECT count(*)::integer FROM pg_stat_activity WHERE pid = \(Int(pid)) AND (wait_event_type = 'Lock' OR (state = 'idle' AND query = 'COMMIT'))
                """)[0].decode(Int.self, at: 0) == 1
        })
        _ = try first.execute("COMMIT")
        #expect(try await folded == 0)
        #expect(try setup.probe.count("SELECT coalesce(sum(n), 0) FROM run_counts WHERE outcome = 'sent'") == 1)
        #expect(try setup.probe.count("SELECT coalesce(sum(n), 0) FROM run_counts WHERE outcome = 'planned'") == 1)
    }
}

/// The label budget's record of each day's labels is kept for the retention period, not forever.
@Suite struct LabelDayRetentionTests {
    @Test func labelsOfDaysPastTheRetentionPeriodAreForgottenAndTodaysKept() throws {
        let url = try DeliveryOutboxTests.migratedDatabase()
        let connection = try PostgresConnection(url: url)
        defer { connection.close() }
        _ = try connection.execute("""
            INSERT INTO label_days (day, label) VALUES ((now() AT TIME ZONE 'UTC')::date, 'today'),
                ((now() AT TIME ZONE 'UTC')::date - 30, 'at-the-edge'), ((now() AT TIME ZONE 'UTC')::date - 31, 'past')
            """)
        _ = try DeliveryRetention(days: 30).apply(on: connection)
        let kept = try connection.query("SELECT label FROM label_days ORDER BY label").map { try $0.decode(String.self, at: 0) }
        #expect(kept == ["at-the-edge", "today"])
        #expect(try LabelDayStore().today(on: connection).used == 1)
    }
}
