import HeraldTestSupport
import FCMEmulator
import Foundation
import HeraldJSON
import HeraldPostgres
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Several `herald serve` processes on one database and one emulator: they share the work, each
/// planned request reaches FCM once, and a process killed mid-run loses nothing.
@Suite(.serialized) struct DeliveryInstancesTests {
    static func environment(_ sink: EmulatorSink, lease: Int = 60) -> [String: String] {
        // Fan-outs of many runs at once: the sharing of work, not FCM's one-at-a-time advice, is under test.
        sink.environment.merging(["HERALD_DELIVERY_LEASE_SECONDS": String(lease), "HERALD_SCHEDULER_POLL_SECONDS": "5",
                                  "HERALD_TOPIC_FANOUTS_AT_ONCE": "0"]) { _, new in new }
    }

    /// Deliveries by the process (its pid, from `sent_by` "host:pid:tag") that recorded them.
    static func sentByProcess(_ deliveries: [(body: String, status: String, attempts: Int, sentBy: String?)]) -> [String: Int] {
        deliveries.reduce(into: [:]) { counts, delivery in
            let parts = delivery.sentBy?.split(separator: ":") ?? []
            counts[parts.count >= 2 ? String(parts[parts.count - 2]) : "none", default: 0] += 1
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func threeProcessesSend200CampaignsDueAtOnceEachRequestOnceAndShareTheWork() async throws {
        let url = try DeliveryOutboxTests.migratedDatabase()
        let probe = try OutboxProbe(url: url)
        defer { probe.close() }
        // Slow enough that one process cannot send everything before the others wake, even on a
        // busy machine: alone, its two workers' rounds of 32 would take four seconds.
        let sink = try EmulatorSink(faults: FaultInjection(slow: 1, slowDelay: .seconds(1)), handlerThreads: 64)
        let processes = try (0..<3).map { _ in try HeraldProcess(databaseURL: url, environment: Self.environment(sink)) }
        for process in processes { try await process.waitUntilSending() }

        let due = Date().addingTimeInterval(2)
        try probe.insertScheduledCampaigns(200, topics: 1, dueAt: due, label: "Flash sale")
        #expect(try await eventually(timeout: .seconds(90)) {
            try probe.count("SELECT count(*) FROM campaigns WHERE status = 'sent'") == 200
        })
        let seconds = Date().timeIntervalSince(due)

        let deliveries = try probe.deliveries()
        #expect(deliveries.count == 200)
        #expect(deliveries.allSatisfy { $0.status == "sent" && $0.attempts == 1 })
        let received = sink.receivedCounts()
        #expect(received.count == 200)
        #expect(received.values.allSatisfy { $0 == 1 })
        #expect(deliveries.allSatisfy { received[$0.body] == 1 })
        #expect(try probe.count("SELECT count(*) FROM runs") == 200)

        let shares = Self.sentByProcess(deliveries)
        let pids = Set(processes.map { String($0.pid) })
        #expect(Set(shares.keys) == pids, "every process sent some: \(shares)")
        print("3 processes, 200 campaigns due at once: all sent within \(String(format: "%.2f", seconds)) s of the due time; deliveries per process \(shares.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" })")
    }

    @Test(.timeLimit(.minutes(3)))
    func aProcessStoppedWithSIGTERMMidRunFinishesItsRoundAndNothingIsSentTwice() async throws {
        let url = try DeliveryOutboxTests.migratedDatabase()
        let probe = try OutboxProbe(url: url)
        defer { probe.close() }
        let sink = try EmulatorSink(faults: FaultInjection(slow: 1, slowDelay: .milliseconds(100)), handlerThreads: 64)
        let stopping = try HeraldProcess(databaseURL: url, environment: Self.environment(sink, lease: 30))
        let staying = try HeraldProcess(databaseURL: url, environment: Self.environment(sink, lease: 30))
        try await stopping.waitUntilSending()
        try await staying.waitUntilSending()

        try probe.insertScheduledCampaigns(100, topics: 50, dueAt: Date(), label: "Deploy day")  // 1,000 requests
        #expect(try await eventually(timeout: .seconds(60)) {
            try probe.count("SELECT count(*) FROM deliveries WHERE status = 'sent'") >= 200
        })
        #expect(await stopping.stop(SIGTERM))
        let leftLeased = try probe.connection.query("""
            SELECT count(*) FROM deliveries WHERE status IN ('pending', 'retrying') AND lease_owner LIKE \("%:\(stopping.pid):%")
            """).first?.decode(Int.self, at: 0) ?? -1
        #expect(leftLeased == 0)  // its last round was recorded before it exited
        // Far sooner than the 30-second lease: nothing waits for a dead worker's claim.
        #expect(try await eventually(timeout: waitingLimit) {
            try probe.count("SELECT count(*) FROM campaigns WHERE status = 'sent'") == 100
        })
        let received = sink.receivedCounts()
        #expect(received.count == 1000)
        #expect(received.values.allSatisfy { $0 == 1 })
        #expect(stopping.log.contains("stopped"))
    }

    /// SIGTERM while FCM takes 25 s to answer: the process exits within its drain deadline (10 s,
    /// not the 25 s of the answers), its round left to its leases; another instance sends the
    /// rest once they run out, and what repeats is at most what was in flight.
    @Test(.timeLimit(.minutes(3)))
    func aProcessStoppedWhileFCMIsSlowExitsWithinItsDrainDeadline() async throws {
        let url = try DeliveryOutboxTests.migratedDatabase()
        let probe = try OutboxProbe(url: url)
        defer { probe.close() }
        let slow = try EmulatorSink(faults: FaultInjection(slow: 1, slowDelay: .seconds(25)), handlerThreads: 64)
        let stopping = try HeraldProcess(databaseURL: url, environment: Self.environment(slow, lease: 3))
        try await stopping.waitUntilSending()
        try probe.insertScheduledCampaigns(20, topics: 5, dueAt: Date(), label: "Slow day")  // 20 requests, one a run
        #expect(try await eventually(timeout: .seconds(60)) { slow.emulator.sendAttempts().count >= 10 })
        let inFlight = try probe.count("SELECT count(*) FROM deliveries WHERE status IN ('pending', 'retrying') AND lease_owner IS NOT NULL")
        let clock = ContinuousClock(), stopped = clock.now
        // Exited by itself well before FCM's first answer: the 10 s deadline and the time to exit.
        #expect(await stopping.stop(SIGTERM, timeout: .seconds(20)))
        let took = stopped.duration(to: clock.now)
        #expect(stopping.log.contains("drain deadline passed"))

        let fast = try EmulatorSink(handlerThreads: 32)
        let taking = try HeraldProcess(databaseURL: url, environment: Self.environment(fast, lease: 3))
        try await taking.waitUntilSending()
        #expect(try await eventually(timeout: waitingLimit) {
            try probe.count("SELECT count(*) FROM campaigns WHERE status = 'sent'") == 20
        })
        let atSlow = slow.receivedCounts(), atFast = fast.receivedCounts()
        #expect(Set(atSlow.keys).union(atFast.keys).count == 20)
        #expect(atFast.values.allSatisfy { $0 == 1 } && atSlow.values.allSatisfy { $0 == 1 })
        let repeated = Set(atSlow.keys).intersection(atFast.keys).count
        #expect(repeated <= inFlight, "\(repeated) repeated, \(inFlight) in flight at SIGTERM")
        print("SIGTERM with FCM answering in 25 s: exited in \(took), \(inFlight) requests in flight, \(repeated) sent again by the other instance")
    }

    @Test(.timeLimit(.minutes(3)))
    func aProcessKilledMidRunLosesNothingAndRepeatsAtMostWhatWasInFlight() async throws {
        let url = try DeliveryOutboxTests.migratedDatabase()
        let probe = try OutboxProbe(url: url)
        defer { probe.close() }
        let sink = try EmulatorSink(faults: FaultInjection(slow: 1, slowDelay: .milliseconds(100)), handlerThreads: 64)
        let lease = 3
        let victim = try HeraldProcess(databaseURL: url, environment: Self.environment(sink, lease: lease))
        let survivor = try HeraldProcess(databaseURL: url, environment: Self.environment(sink, lease: lease))
        try await victim.waitUntilSending()
        try await survivor.waitUntilSending()

        // 300 campaigns of 50 topics: 3,000 requests (ten conditions each).
        try probe.insertScheduledCampaigns(300, topics: 50, dueAt: Date(), label: "Big run")
        let total = 3000
        // What the victim held when it died (a fifth of the requests sent): claimed, perhaps sent, never recorded.
        let inFlight = try await victim.killHoldingWork(once: {
            try probe.count("SELECT count(*) FROM deliveries WHERE status = 'sent'") >= total / 5
        }) {
            try probe.connection.query("""
                SELECT count(*) FROM deliveries WHERE status IN ('pending', 'retrying') AND lease_owner LIKE \("%:\(victim.pid):%")
                """).first?.decode(Int.self, at: 0) ?? -1
        }
        let killedAt = ContinuousClock.now
        let sentAtKill = try probe.count("SELECT count(*) FROM deliveries WHERE status = 'sent'")
        #expect(sentAtKill >= total / 5)

        #expect(try await eventually(timeout: .seconds(90)) {
            try probe.count("SELECT count(*) FROM campaigns WHERE status = 'sent'") == 300
        })
        let finishedAfter = ContinuousClock.now - killedAt

        let deliveries = try probe.deliveries()
        #expect(deliveries.count == total)
        #expect(deliveries.allSatisfy { $0.status == "sent" })
        let received = sink.receivedCounts()
        #expect(deliveries.allSatisfy { (received[$0.body] ?? 0) >= 1 })  // nothing lost
        let duplicates = received.values.reduce(0) { $0 + $1 - 1 }
        #expect(inFlight > 0)
        #expect(duplicates <= inFlight)
        // At most one request of each fan-out (run) is repeated.
        let runs = try probe.connection.query("SELECT body, run_id::text FROM deliveries").map { try $0.decode((String, String).self) }
        var repeatedPerRun: [String: Int] = [:]
        for (body, run) in runs { repeatedPerRun[run, default: 0] += max(0, (received[body] ?? 0) - 1) }
        #expect(repeatedPerRun.values.allSatisfy { $0 <= 1 }, "\(repeatedPerRun.filter { $0.value > 1 })")
        let shares = Self.sentByProcess(deliveries)
        #expect(shares[String(survivor.pid)] ?? 0 > total - sentAtKill - inFlight)
        print("""
            crash: \(total) deliveries; victim killed with \(sentAtKill) sent and \(inFlight) in flight (lease \(lease) s); \
            survivor finished \(finishedAfter) later; received \(received.values.reduce(0, +)) requests, \
            \(duplicates) duplicated (≤ \(inFlight) in flight, at most \(repeatedPerRun.values.max() ?? 0) per run); recorded by process \(shares)
            """)
    }
}

extension DeliveryInstancesTests {
    @Test(.timeLimit(.minutes(3)))
    func theOnlyProcessKilledMidRunIsFinishedByItsRestart() async throws {
        let url = try DeliveryOutboxTests.migratedDatabase()
        let probe = try OutboxProbe(url: url)
        defer { probe.close() }
        let sink = try EmulatorSink(faults: FaultInjection(slow: 1, slowDelay: .milliseconds(100)), handlerThreads: 64)
        let first = try HeraldProcess(databaseURL: url, environment: Self.environment(sink, lease: 3))
        try await first.waitUntilSending()
        try probe.insertScheduledCampaigns(100, topics: 50, dueAt: Date(), label: "Restarted")  // 1,000 requests
        let inFlight = try await first.killHoldingWork(once: {
            try probe.count("SELECT count(*) FROM deliveries WHERE status = 'sent'") >= 200
        }) {
            try probe.count("SELECT count(*) FROM deliveries WHERE status IN ('pending', 'retrying') AND lease_owner IS NOT NULL")
        }
        #expect(try probe.count("SELECT count(*) FROM deliveries WHERE status = 'sent'") >= 200)

        let restarted = try HeraldProcess(databaseURL: url, environment: Self.environment(sink, lease: 3))
        try await restarted.waitUntilSending()
        #expect(try await eventually(timeout: .seconds(60)) {
            try probe.count("SELECT count(*) FROM campaigns WHERE status = 'sent'") == 100
        })
        let received = sink.receivedCounts()
        let duplicates = received.values.reduce(0) { $0 + $1 - 1 }
        #expect(received.count == 1000)
        #expect(duplicates <= inFlight)
        print("restart: 1000 deliveries, killed with \(inFlight) in flight, \(duplicates) duplicated after the restart finished the run")
    }
}
