import FCMEmulator
import Foundation
import HeraldCore
import HeraldFCM
import HeraldJSON
import HeraldPostgres
import HeraldTestSupport
import Testing
@testable import HeraldApp

/// The project's quota shared by two delivery engines (two instances) on one database, each
/// sending through its own emulator. Time is scaled down: "6,000 a minute" is 6,000 in 6 seconds
/// for 30,000 messages to devices, and 100 a second for 500 topic requests.
@Suite(.serialized) struct SendQuotaTests {
    /// An engine sending through `sink` at `rate`. `deviceRound` is a worker's round to devices,
    /// which is also the bucket's capacity; engines sending topics only may keep it at a topic
    /// round's size, so their burst is one topic round.
    static func engine(url: String, sink: EmulatorSink, rate: DeliveryEngine.SendRate,
                       policy: RetryPolicy = RetryPolicy(), deviceRound: Int = 32) throws -> DeliveryEngine {
        var settings = DeliveryEngine.Configuration()
        settings.pollInterval = .seconds(1)
        settings.sendRate = rate
        settings.retryPolicy = policy
        settings.deviceBatchSize = deviceRound
        let pool = PostgresPool(url: url, maxConnections: 6, acquireTimeout: .seconds(5))
        let engine = DeliveryEngine(configuration: settings, pool: pool, databaseURL: url, sender: try sink.sender(),
                                    log: Log(minimum: .error), metrics: Metrics())
        engine.start()
        return engine
    }

    /// Requests granted but not yet at FCM, at most: every worker of every instance one round.
    static func inFlight(instances: Int, round: Int) -> Int {
        instances * DeliveryEngine.Configuration().workers * round
    }

    /// The most requests any window of `seconds` holds, over every window starting at a request.
    static func busiestWindow(_ times: [ContinuousClock.Instant], seconds: Double) -> Int {
        let sorted = times.sorted()
        var start = 0, most = 0
        for (end, time) in sorted.enumerated() {
            while sorted[start] < time - .milliseconds(Int64(seconds * 1000)) + .nanoseconds(1) { start += 1 }
            most = max(most, end - start + 1)
        }
        return most
    }

    @Test(.timeLimit(.minutes(2)))
    func twoInstancesNeverExceedTheSharedLimitInAnyRollingWindowAndLoseNothing() async throws {
        let url = try DeliveryOutboxTests.migratedDatabase()
        let probe = try OutboxProbe(url: url)
        defer { probe.close() }
        let first = try EmulatorSink(handlerThreads: 32), second = try EmulatorSink(handlerThreads: 32)
        let rate = DeliveryEngine.SendRate(project: "herald-test", messages: 100, per: .seconds(1))
        try probe.insertScheduledCampaigns(100, topics: 25, dueAt: Date(), label: "Quota")  // 100 × 5 requests
        try probe.logBucketGrants()
        let started = ContinuousClock.now
        let engines = try [first, second].map { try Self.engine(url: url, sink: $0, rate: rate) }
        defer { engines.forEach { $0.stop() } }
        #expect(try await eventually(timeout: .seconds(60)) {
            try probe.count("SELECT count(*) FROM deliveries WHERE status = 'sent'") == 500
        })
        let took = started.duration(to: .now)

        let times = (first.emulator.sendAttempts() + second.emulator.sendAttempts()).map(\.receivedAt)
        let granted = try probe.busiestGrantWindow(seconds: 1)
        let busiest = Self.busiestWindow(times, seconds: 1)
        // Where the bucket decides, the limit and its capacity (one round, 32) at most; at FCM's
        // side, on a busy machine, also the rounds granted earlier and still in flight.
        #expect(granted <= 100 + 32, "most tokens granted in a second: \(granted)")
        #expect(busiest <= 100 + 32 + Self.inFlight(instances: 2, round: 32), "busiest second at FCM: \(busiest)")
        #expect(took >= .seconds(3.5), "500 requests at 100 a second (with a 32-token start) took \(took)")
        let received = first.receivedCounts().merging(second.receivedCounts()) { $0 + $1 }
        #expect(received.count == 500 && received.values.allSatisfy { $0 == 1 })
        #expect(first.emulator.sendAttempts().count > 50 && second.emulator.sendAttempts().count > 50)  // both sent
        // Read once the engines have stopped: an idle worker takes tokens, finds nothing, and gives them back.
        engines.forEach { $0.stop() }
        #expect(engines.allSatisfy { $0.waitUntilStopped(timeout: .seconds(10)) })
        let taken = try probe.count("SELECT taken FROM send_buckets WHERE project = 'herald-test'")
        #expect(taken == 500, "tokens taken: \(taken)")
        print("quota: 2 instances, 500 requests at 100/s (6,000/min scaled 60×): took \(took), most granted in a rolling second \(granted), "
              + "busiest rolling second at FCM \(busiest), "
              + "shares \(first.emulator.sendAttempts().count)/\(second.emulator.sendAttempts().count)")
    }

    /// The case at its own counts: 30,000 messages to devices, a limit of 6,000 a minute
    /// (time scaled ten times: 6,000 in every 6 seconds).
    @Test(.timeLimit(.minutes(3)))
    func twoInstancesSend30000TokenMessagesWithinTheLimitInEveryRollingWindowAndLoseNothing() async throws {
        let url = try DeliveryOutboxTests.migratedDatabase()
        let probe = try OutboxProbe(url: url)
        defer { probe.close() }
        let first = try EmulatorSink(handlerThreads: 64), second = try EmulatorSink(handlerThreads: 64)
        let round = DeliveryEngine.Configuration().deviceBatchSize
        let rate = DeliveryEngine.SendRate(project: "herald-test", messages: 6000, per: .seconds(6))
        let tokens = (0..<30_000).map(AudienceDeliveryTests.token)
        let segment = try probe.insertAndroidDevicesAndTheirSegment(tokens)
        let content: JSON = ["name": "Quota to devices", "notification": ["title": "Hello"], "segment": .string(segment)]
        _ = try probe.connection.execute("""
            INSERT INTO campaigns (name, status, content, next_run_at) VALUES ('Quota to devices', 'scheduled', \(PostgresJSONB(content.serializedString())), now())
            """)
        try probe.logBucketGrants()
        let engines = try [first, second].map { try Self.engine(url: url, sink: $0, rate: rate, deviceRound: round) }
        defer { engines.forEach { $0.stop() } }
        #expect(try await eventually(timeout: .seconds(150)) {
            try probe.streamed("sent") == 30_000
        })

        let times = (first.emulator.sendAttempts() + second.emulator.sendAttempts()).map(\.receivedAt)
        let granted = try probe.busiestGrantWindow(seconds: 6)
        let busiest = Self.busiestWindow(times, seconds: 6)
        let took = times.min().map { $0.duration(to: times.max()!) } ?? .zero
        // Where the bucket decides, the limit and its capacity (one worker round) at most; at
        // FCM's side, on a busy machine, also the rounds granted earlier and still in flight.
        #expect(granted <= 6000 + round, "most tokens granted in 6 seconds: \(granted)")
        #expect(busiest <= 6000 + round + Self.inFlight(instances: 2, round: round), "busiest 6 seconds at FCM: \(busiest)")
        #expect(took >= .seconds(Double(30_000 - round) / 1000 - 1), "30,000 messages at 1,000 a second took \(took)")
        var received: [String: Int] = [:]
        for message in first.emulator.messages() + second.emulator.messages() {
            received[message.message["token"]?.stringValue ?? "", default: 0] += 1
        }
        #expect(received.count == 30_000 && received.values.allSatisfy { $0 == 1 })
        #expect(first.emulator.sendAttempts().count > 1000 && second.emulator.sendAttempts().count > 1000)  // both sent
        print("quota to devices: 2 instances, 30,000 messages at 6,000 per 6 s (6,000/min scaled 10×): first to last \(took), "
              + "most granted in a rolling 6 s \(granted), busiest rolling 6 s at FCM \(busiest), shares \(first.emulator.sendAttempts().count)/\(second.emulator.sendAttempts().count)")
    }

    /// A 429 to a topic fan-out is about that topic's rate (or fan-outs), not the project's: every
    /// instance's fan-outs wait what FCM asked, while requests to devices go on.
    @Test(.timeLimit(.minutes(3)))
    func a429ToATopicHoldsOnlyTopicFanOutsAndDevicesGoOn() async throws {
        let url = try DeliveryOutboxTests.migratedDatabase()
        let probe = try OutboxProbe(url: url)
        defer { probe.close() }
        // FCM asks for 20 s: long enough for the devices' run to start and send inside it on a busy machine.
        let sink = try EmulatorSink(faults: FaultInjection(retryAfterSeconds: 20), handlerThreads: 32) { $0.throttledTopics = ["t0-0"] }
        // Devices trickle (100 a second), so some are sent during the fan-outs' hold.
        let rate = DeliveryEngine.SendRate(project: "herald-test", messages: 100, per: .seconds(1))
        let policy = RetryPolicy(maxAttempts: 2, baseDelay: .milliseconds(100), maxDelay: .seconds(1), quotaExceededMinimumDelay: .seconds(1))
        try probe.insertScheduledCampaigns(6, topics: 1, dueAt: Date(), label: "Topics")  // topic t0-0 is over its rate
        let engine = try Self.engine(url: url, sink: sink, rate: rate, policy: policy)
        defer { engine.stop() }
        #expect(try await eventually(timeout: waitingLimit) { sink.emulator.sendAttempts().contains { $0.status == 429 } })
        let refused = try #require(sink.emulator.sendAttempts().first { $0.status == 429 }).receivedAt
        let segment = try probe.insertAndroidDevicesAndTheirSegment((0..<600).map(AudienceDeliveryTests.token))
        let content: JSON = ["name": "Devices", "notification": ["title": "Hello"], "segment": .string(segment)]
        _ = try probe.connection.execute("""
            INSERT INTO campaigns (name, status, content, next_run_at) VALUES ('Devices', 'scheduled', \(PostgresJSONB(content.serializedString())), now())
            """)
        _ = try probe.connection.query("SELECT pg_notify('herald_schedule', '')")
        #expect(try await eventually(timeout: waitingLimit) {
            try probe.streamed("sent") == 600 && probe.count("SELECT count(*) FROM campaigns WHERE status NOT IN ('scheduled', 'sending')") == 7
        })

        // Within the hold (the first second left out: a round claimed before it still lands),
        // devices were sent and no topic was.
        let attempts = sink.emulator.sendAttempts().filter { $0.receivedAt > refused + .seconds(1) && $0.receivedAt < refused + .milliseconds(19_800) }
        let topics = attempts.filter { $0.message?["topic"] != nil }, devices = attempts.filter { $0.message?["token"] != nil }
        #expect(topics.isEmpty, "\(topics.count) topic requests sent while FCM asked fan-outs to wait")
        #expect(!devices.isEmpty, "requests to devices held by a topic's 429")
        #expect(try probe.count("SELECT slowdowns FROM send_buckets WHERE project = 'herald-test/fan-outs'") >= 1)
        #expect(try probe.count("SELECT slowdowns FROM send_buckets WHERE project = 'herald-test'") == 0, "the project was not held")
        print("topic 429: \(devices.count) device requests and \(topics.count) topic requests inside the fan-outs' 20 s hold")
    }

    @Test(.timeLimit(.minutes(5)))
    func a429ToOneInstanceHoldsBothForItsRetryAfterAndNothingIsLost() async throws {
        let url = try DeliveryOutboxTests.migratedDatabase()
        let probe = try OutboxProbe(url: url)
        defer { probe.close() }
        // The first instance's FCM answers every request 429 with Retry-After: 3; the second's accepts all.
        let refusing = try EmulatorSink(faults: FaultInjection(quotaExceeded: 1, retryAfterSeconds: 3))
        let accepting = try EmulatorSink(handlerThreads: 32)
        let rate = DeliveryEngine.SendRate(project: "herald-test", messages: 1_000_000)  // the bucket itself never limits here
        let policy = RetryPolicy(maxAttempts: 50, baseDelay: .milliseconds(100), maxDelay: .seconds(1), quotaExceededMinimumDelay: .seconds(1))
        try probe.insertScheduledCampaigns(100, topics: 50, dueAt: Date(), label: "Held")  // 100 × 10 requests
        let slowed = try Self.engine(url: url, sink: refusing, rate: rate, policy: policy)
        let other = try Self.engine(url: url, sink: accepting, rate: rate, policy: policy)
        defer { other.stop() }
        // Both run until a whole hold is behind them: the other instance sent again after it.
        #expect(try await eventually(timeout: waitingLimit) {
            guard let refused = refusing.emulator.sendAttempts().map(\.receivedAt).min() else { return false }
            return accepting.emulator.sendAttempts().contains { $0.receivedAt > refused + .seconds(3) }
        })
        slowed.stop()
        #expect(slowed.waitUntilStopped(timeout: .seconds(10)))

        let refusals = refusing.emulator.sendAttempts().map(\.receivedAt)
        let accepted = accepting.emulator.sendAttempts().map(\.receivedAt)
        #expect(!refusals.isEmpty)
        // After each 429 the other instance sends nothing for the 3 seconds FCM asked. The hold is
        // written once the refused instance has read its answers, and a round already claimed still
        // lands, so the first second after the refusal reached FCM is left out.
        let during = accepted.filter { time in
            refusals.contains { time > $0 + .seconds(1) && time < $0 + .milliseconds(2800) }
        }
        #expect(during.isEmpty, "\(during.count) requests sent by the other instance while FCM asked every sender to wait")
        #expect(try probe.count("SELECT sum(slowdowns)::bigint FROM send_buckets") >= 1)

        // Once the refusing instance is gone, the other sends everything, each request once.
        #expect(try await eventually(timeout: waitingLimit) {
            try probe.count("SELECT count(*) FROM deliveries WHERE status = 'sent'") == 1000
        })
        #expect(accepting.receivedCounts().count == 1000 && accepting.receivedCounts().values.allSatisfy { $0 == 1 })
        print("429 hold: \(refusals.count) refusals at the first instance, \(accepted.count) requests at the second, none inside a hold")
    }
}
