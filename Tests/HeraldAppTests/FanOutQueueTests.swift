import FCMEmulator
import Foundation
import HeraldCore
import HeraldJSON
import HeraldPostgres
import HeraldTestSupport
import Testing
@testable import HeraldApp

/// One topic fan-out at a time across the project: claims wait their turn, two instances never
/// have two fan-outs in flight, and the runs API shows each run's place in the queue.
@Suite(.serialized) struct FanOutQueueTests {
    @Test(.timeLimit(.minutes(5)))
    func onlyOneFanOutIsClaimedAtATimeAndTheQueueIsShown() throws {
        let url = try DeliveryOutboxTests.migratedDatabase()
        let probe = try OutboxProbe(url: url)
        defer { probe.close() }
        try probe.insertScheduledCampaigns(3, topics: 10, dueAt: Date().addingTimeInterval(-1), label: "Queued")  // 2 requests each
        _ = try RunStarter(buckets: AudienceBuckets()).startDueRuns(limit: 10, now: Date(), on: probe.connection)
        let store = DeliveryStore()
        let first = try store.claim(owner: "a", limit: 10, lease: .seconds(60), fanOutsAtOnce: 1, on: probe.connection)
        #expect(first.count == 1)
        #expect(try store.claim(owner: "b", limit: 10, lease: .seconds(60), fanOutsAtOnce: 1, on: probe.connection).isEmpty)
        // Without the limit, the other runs would each have one in flight.
        #expect(try store.claim(owner: "c", limit: 10, lease: .seconds(60), fanOutsAtOnce: 2, on: probe.connection).count == 1)

        let campaignIDs = try probe.connection.query("SELECT campaign_id::text FROM runs ORDER BY occurrence, id").map { try $0.decode(CampaignID.self, at: 0) }
        let queue = try campaignIDs.map { try ProgressStore().runs(campaignID: $0, on: probe.connection).first?.fanOutQueueAhead }
        #expect(queue == [0, 1, 2])

        try store.record([DeliveryStore.Outcome(id: first[0].id, status: .sent, messageName: "m")], owner: "a",
                         runIDs: [first[0].runID], on: probe.connection)
        #expect(try store.claim(owner: "b", limit: 10, lease: .seconds(60), fanOutsAtOnce: 2, on: probe.connection).count == 1)
    }

    @Test(.timeLimit(.minutes(5)))
    func twoInstancesNeverHaveTwoFanOutsInFlight() async throws {
        let url = try DeliveryOutboxTests.migratedDatabase()
        let probe = try OutboxProbe(url: url)
        defer { probe.close() }
        let sink = try EmulatorSink(faults: FaultInjection(slow: 1, slowDelay: .milliseconds(300)), handlerThreads: 16)
        try probe.insertScheduledCampaigns(10, topics: 10, dueAt: Date(), label: "One at a time")  // 20 requests
        var settings = DeliveryEngine.Configuration()
        settings.pollInterval = .seconds(1)
        settings.fanOutsAtOnce = 1
        let engines = try (0..<2).map { _ in
            DeliveryEngine(configuration: settings, pool: PostgresPool(url: url, maxConnections: 6, acquireTimeout: .seconds(5)), databaseURL: url,
                           sender: try sink.sender(), log: Log(minimum: .error), metrics: Metrics())
        }
        engines.forEach { $0.start() }
        defer { engines.forEach { $0.stop() } }
        // Both claim at once until a request is answered; then the instance that sent it stops, so
        // the other sends the rest, however the races between them went (6 s of sending: no machine
        // is that slow to notice the first answer).
        #expect(try await eventually(timeout: waitingLimit) {
            try probe.count("SELECT count(*) FROM deliveries WHERE status = 'sent'") >= 1
        })
        let first = try #require(try probe.deliveries().compactMap(\.sentBy).first)
        try #require(engines.first { $0.owner == first }).stop()
        #expect(try await eventually(timeout: waitingLimit) {
            try probe.count("SELECT count(*) FROM deliveries WHERE status = 'sent'") == 20
        })
        // Each request takes 300 ms to answer: with one in flight, no two arrive closer together.
        let times = sink.emulator.sendAttempts().map(\.receivedAt).sorted()
        #expect(times.count == 20)
        let closest = zip(times, times.dropFirst()).map { $0.0.duration(to: $0.1) }.min() ?? .zero
        #expect(closest >= .milliseconds(295), "two fan-outs \(closest) apart")
        #expect(Set(try probe.deliveries().compactMap(\.sentBy)).count == 2)  // both instances took turns
    }
}
