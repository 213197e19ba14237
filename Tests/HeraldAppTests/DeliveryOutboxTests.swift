import FCMEmulator
import Foundation
import HeraldCore
import HeraldFCM
import HeraldJSON
import HeraldPostgres
import HeraldTestSupport
import Synchronization
import Testing
@testable import HeraldApp

/// The outbox driven directly: runs started from due campaigns, workers that send, retry and
/// record, against a database of each test's own and the emulator.
@Suite struct DeliveryOutboxTests {
    static func migratedDatabase() throws -> String {
        let url = try TestDatabase.create()
        let connection = try PostgresConnection(url: url)
        defer { connection.close() }
        _ = try Migrator(directory: TestDatabase.repositoryRoot + "/Migrations").migrate(connection)
        return url
    }

    static func startEngine(url: String, sink: EmulatorSink, policy: RetryPolicy = RetryPolicy()) throws -> DeliveryEngine {
        var settings = DeliveryEngine.Configuration()
        settings.retryPolicy = policy
        settings.pollInterval = .seconds(1)
        let pool = PostgresPool(url: url, maxConnections: 6, acquireTimeout: .seconds(5))
        let engine = DeliveryEngine(configuration: settings, pool: pool, databaseURL: url, sender: try sink.sender(),
                                    log: Log(minimum: .error), metrics: Metrics())
        engine.start()
        return engine
    }

    @Test(.timeLimit(.minutes(5)))
    func aRecurringCampaignGetsOneRunPerOccurrenceAndNeverTheSameOccurrenceTwice() throws {
        let url = try Self.migratedDatabase()
        let probe = try OutboxProbe(url: url)
        defer { probe.close() }
        // Daily, twelve hours from now: the next real occurrence is far off; the test sets each due time.
        let local = utcLocal(Date().addingTimeInterval(12 * 3600))
        let content: JSON = ["name": "Daily digest", "notification": ["title": "Digest", "body": "Today's news"], "topics": ["news"],
                             "schedule": ["kind": "daily", "time": .string(String(local.suffix(8))), "time_zone": "UTC"]]
        let id = try #require(try probe.connection.query("""
            INSERT INTO campaigns (name, status, content, next_run_at)
            VALUES ('Daily digest', 'scheduled', \(content.serializedString())::jsonb, now() - interval '1 second') RETURNING id::text
            """).first?.decode(String.self, at: 0))
        func start() throws -> [DeliveryStore.StartedRun] {
            try RunStarter(buckets: AudienceBuckets()).startDueRuns(limit: 50, now: Date(), on: probe.connection)
        }
        func setDue(_ sql: StaticString) throws {
            _ = try probe.connection.execute("UPDATE campaigns SET next_run_at = \(literal: sql) WHERE id = \(id)::uuid")
        }

        #expect(try start().count == 1)
        #expect(try start().isEmpty)  // the campaign moved on to its next occurrence
        let moved = try #require(try probe.connection.query(
            "SELECT status, extract(epoch FROM next_run_at - now())::float8 FROM campaigns WHERE id = \(id)::uuid").first)
        #expect(try moved.decode(String.self, at: 0) == "scheduled")
        #expect(try moved.decode(Double.self, at: 1) > 11 * 3600)

        // A stale due time naming the occurrence already run (a second scheduler's view): no second run.
        try setDue("(SELECT occurrence FROM runs LIMIT 1)")
        #expect(try start().isEmpty)
        #expect(try probe.count("SELECT count(*) FROM runs") == 1)

        // The next occurrence gets its own run.
        try setDue("now() - interval '100 milliseconds'")
        #expect(try start().count == 1)
        #expect(try probe.count("SELECT count(DISTINCT occurrence) FROM runs") == 2)

        // Two schedulers at once on one due occurrence: exactly one starts it.
        try setDue("now() - interval '50 milliseconds'")
        let counts = Tally()
        let finished = DispatchSemaphore(value: 0)
        let threads = (0..<2).map { _ in
            Thread {
                let started = (try? PostgresConnection(url: url)).map { connection in
                    defer { connection.close() }
                    return (try? RunStarter(buckets: AudienceBuckets()).startDueRuns(limit: 50, now: Date(), on: connection).count) ?? -1
                } ?? -1
                counts.values.withLock { $0.append(started) }
                finished.signal()
            }
        }
        threads.forEach { $0.start() }
        for _ in threads { #expect(finished.wait(timeout: .now() + Double(waitingLimit.components.seconds)) == .success) }
        #expect(counts.values.withLock { $0.sorted() } == [0, 1])
        #expect(try probe.count("SELECT count(*) FROM runs") == 3)
        #expect(try probe.count("SELECT count(*) FROM deliveries") == 3)
    }

    @Test(.timeLimit(.minutes(5)))
    func aRequestFCMRefusesFailsAloneWithoutRetriesAndTheRunIsPartlyFailed() async throws {
        let url = try Self.migratedDatabase()
        let probe = try OutboxProbe(url: url)
        defer { probe.close() }
        let sink = try EmulatorSink()
        try probe.insertScheduledCampaigns(1, topics: 7, dueAt: Date().addingTimeInterval(-1), label: "Half broken")
        #expect(try RunStarter(buckets: AudienceBuckets()).startDueRuns(limit: 10, now: Date(), on: probe.connection).first?.deliveries == 2)
        // One stored request gets a field FCM does not know: 400 INVALID_ARGUMENT, a permanent error.
        _ = try probe.connection.execute("""
            UPDATE deliveries SET body = '{"no_such_field":1,' || substr(body, 2) WHERE id = (SELECT min(id) FROM deliveries)
            """)

        let engine = try Self.startEngine(url: url, sink: sink)
        defer { engine.stop() }
        #expect(try await eventually(timeout: waitingLimit) {
            try probe.count("SELECT count(*) FROM campaigns WHERE status = 'partially_failed'") == 1
        })
        let failed = try #require(try probe.connection.query(
            "SELECT error_code, error_message, attempts FROM deliveries WHERE status = 'failed'").first)
        #expect(try failed.decode(String.self, at: 0) == "INVALID_ARGUMENT")
        #expect(try failed.decode(String.self, at: 1).contains("no_such_field"))
        #expect(try failed.decode(Int.self, at: 2) == 1)
        #expect(try probe.count("SELECT count(*) FROM runs WHERE status = 'partially_failed'") == 1)
        #expect(try await engine.looksAgain(waking: url))
        let attempts = sink.emulator.sendAttempts()
        #expect(attempts.filter { $0.status == 400 }.count == 1)
        #expect(attempts.filter { $0.status == 200 }.count == 1)
        #expect(attempts.count == 2)
    }

    /// A fan-out request reaches every subscribed device: at most one request of a run is in
    /// flight at a time, whoever claims, so a crash can repeat at most one per run.
    @Test(.timeLimit(.minutes(5)))
    func atMostOneRequestOfARunIsInFlightAtATimeAndLongRoundsKeepTheirLease() throws {
        let url = try Self.migratedDatabase()
        let probe = try OutboxProbe(url: url)
        defer { probe.close() }
        try probe.insertScheduledCampaigns(2, topics: 15, dueAt: Date().addingTimeInterval(-1), label: "Fan-out")  // 3 requests each
        _ = try RunStarter(buckets: AudienceBuckets()).startDueRuns(limit: 10, now: Date(), on: probe.connection)
        let store = DeliveryStore()
        let first = try store.claim(owner: "a", limit: 10, deviceLimit: 10, lease: .seconds(60), on: probe.connection)
        #expect(first.count == 2 && Set(first.map(\.runID)).count == 2)  // one of each run
        #expect(try store.claim(owner: "b", limit: 10, deviceLimit: 10, lease: .seconds(60), on: probe.connection).isEmpty)
        // While a run's request is in flight, its next one is not "ready now" for an idle worker.
        let wait = try #require(try store.secondsUntilNextDelivery(on: probe.connection))
        #expect(wait > 50)
        // Renewing keeps the lease; recording frees the run for its next request.
        try store.renew(first.map(\.id), owner: "a", lease: .seconds(120), on: probe.connection)
        #expect(try probe.count("SELECT count(*) FROM deliveries WHERE lease_expires_at > now() + interval '100 seconds'") == 2)
        try store.record([DeliveryStore.Outcome(id: first[0].id, status: .sent, messageName: "m")], owner: "a",
                         runIDs: [first[0].runID], on: probe.connection)
        let next = try store.claim(owner: "b", limit: 10, deviceLimit: 10, lease: .seconds(60), on: probe.connection)
        #expect(next.map(\.runID) == [first[0].runID] && next[0].id != first[0].id)
    }

    @Test(.timeLimit(.minutes(5)))
    func aRunWhoseLastOutcomesWereRecordedByAWorkerThatThenDiedIsStillClosed() async throws {
        let url = try Self.migratedDatabase()
        let probe = try OutboxProbe(url: url)
        defer { probe.close() }
        let sink = try EmulatorSink()
        try probe.insertScheduledCampaigns(1, topics: 3, dueAt: Date().addingTimeInterval(-1), label: "Orphaned")
        _ = try RunStarter(buckets: AudienceBuckets()).startDueRuns(limit: 10, now: Date(), on: probe.connection)
        // Recorded as sent, but the process died before closing the run: nobody will record anything more.
        _ = try probe.connection.execute("UPDATE deliveries SET status = 'sent', attempts = 1, sent_at = now(), message_name = 'm'")
        #expect(try probe.count("SELECT count(*) FROM runs WHERE status = 'sending'") == 1)

        let engine = try Self.startEngine(url: url, sink: sink)
        defer { engine.stop() }
        #expect(try await eventually(timeout: waitingLimit) {
            try probe.count("SELECT count(*) FROM campaigns WHERE status = 'sent'") == 1
        })
        #expect(try probe.count("SELECT count(*) FROM runs WHERE status = 'sent' AND finished_at IS NOT NULL") == 1)
        #expect(sink.emulator.sendAttempts().isEmpty)
    }

    @Test(.timeLimit(.minutes(2)))
    func underUnavailableAndQuotaFaultsEveryDeliveryEndsSentOnceAndRetriesWaitAsAsked() async throws {
        let url = try Self.migratedDatabase()
        let probe = try OutboxProbe(url: url)
        defer { probe.close() }
        let sink = try EmulatorSink(faults: FaultInjection(quotaExceeded: 0.1, unavailable: 0.3, retryAfterSeconds: 1, seed: 4))
        try probe.insertScheduledCampaigns(20, topics: 25, dueAt: Date(), label: "Faulty")  // 20 × 5 requests
        // FCM asks for a minute after QUOTA_EXCEEDED; the test shortens it to keep within its time.
        let policy = RetryPolicy(maxAttempts: 30, baseDelay: .milliseconds(200), maxDelay: .seconds(2),
                                 quotaExceededMinimumDelay: .seconds(1))
        let engine = try Self.startEngine(url: url, sink: sink, policy: policy)
        defer { engine.stop() }
        #expect(try await eventually(timeout: .seconds(90)) {
            try probe.count("SELECT count(*) FROM campaigns WHERE status = 'sent'") == 20
        })

        let deliveries = try probe.deliveries()
        #expect(deliveries.count == 100)
        #expect(deliveries.allSatisfy { $0.status == "sent" })
        let received = sink.receivedCounts()
        #expect(received.count == 100)
        #expect(deliveries.allSatisfy { received[$0.body] == 1 })

        // Every attempt is one the database counted; after a 429 the next comes no sooner than Retry-After.
        let attempts = Dictionary(grouping: sink.emulator.sendAttempts(), by: { $0.message?.serializedString() ?? "" })
        #expect(deliveries.allSatisfy { attempts[$0.body]?.count == $0.attempts })
        var quota = 0, unavailable = 0
        for (_, tries) in attempts {
            for (earlier, later) in zip(tries, tries.dropFirst()) where earlier.status == 429 {
                quota += 1
                #expect(later.receivedAt - earlier.receivedAt >= .milliseconds(950))
            }
            unavailable += tries.filter { $0.status == 503 }.count
            #expect(tries.dropLast().allSatisfy { $0.status == 429 || $0.status == 503 })
        }
        #expect(quota > 0 && unavailable > 0)
        print("faults: 100 deliveries, \(attempts.values.map(\.count).reduce(0, +)) attempts, \(unavailable) × 503, \(quota) × 429, all sent once")
    }
}

/// Numbers threads report back.
final class Tally: Sendable {
    let values = Mutex<[Int]>([])
}
