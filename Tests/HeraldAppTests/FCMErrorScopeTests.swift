import FCMEmulator
import Foundation
import HeraldCore
import HeraldFCM
import HeraldJSON
import HeraldPostgres
import HeraldTestSupport
import Testing
@testable import HeraldApp

/// FCM's errors as they are meant: SENDER_ID_MISMATCH says the key is wrong for the tokens, not
/// that the devices are gone; an answer that is not FCM's says nothing of a device; a credential
/// error concerns every request; a 429 about one device holds that device, not the project.
@Suite(.serialized) struct FCMErrorScopeTests {
    static func engine(url: String, sender: any MessageSending) -> DeliveryEngine {
        var settings = DeliveryEngine.Configuration()
        settings.pollInterval = .seconds(1)
        let engine = DeliveryEngine(configuration: settings, pool: PostgresPool(url: url, maxConnections: 6, acquireTimeout: .seconds(5)),
                                    databaseURL: url, sender: sender, log: Log(minimum: .error), metrics: Metrics())
        engine.start()
        return engine
    }

    /// Resumes a campaign as a publisher would once the configuration is fixed.
    static func resume(_ campaign: String, _ setup: AudienceDeliveryTests.Setup) throws {
        let version = try #require(try setup.probe.connection.query("SELECT version FROM campaigns WHERE id = \(campaign)::uuid").first?.decode(Int.self, at: 0))
        let id = try #require(CampaignID(campaign))
        guard case .updated = try LifecycleStore().resume(id: id, expectedVersion: version, on: setup.probe.connection) else {
            Issue.record("campaign \(campaign) could not be resumed")
            return
        }
    }

    /// A wrong base URL (or a proxy's page): every send is answered 404 with HTML. That is not
    /// FCM's UNREGISTERED: no device is marked invalid, both campaigns (a segment's, streamed, and
    /// a topic's) pause at their first answers with a warning naming the URL, and once the URL is
    /// fixed and they are resumed, every device and the topic get their message exactly once.
    @Test(.timeLimit(.minutes(5)))
    func aNotFoundThatIsNotFCMsPrunesNothingAndPausesUntilFixed() async throws {
        let tokens = (0..<12).map(AudienceDeliveryTests.token)
        let proxy = try StubServer { _ in
            .respond(EmulatorResponse(status: 404, headers: [("Content-Type", "text/html")],
                                      body: Array("<html><body><h1>404 Not Found</h1>nginx</body></html>".utf8)), delay: nil)
        }
        defer { proxy.stop() }
        let sink = try EmulatorSink()
        let setup = try AudienceDeliveryTests.Setup()
        defer { setup.probe.close() }
        let segment = try setup.probe.insertAndroidDevicesAndTheirSegment(tokens)
        let account = try ServiceAccount(contentsOfFile: sink.keyPath)
        let misrouted = FCMSender(configuration: FCMConfiguration(projectID: account.projectID, baseURL: "http://127.0.0.1:\(proxy.port)"),
                                  serviceAccount: account, tokenURI: sink.baseURL + "/token")
        var engine = Self.engine(url: setup.url, sender: misrouted)
        let devices = try setup.schedule(["name": "Misrouted", "notification": ["title": "Hi"], "segment": .string(segment)])
        let topic = try setup.schedule(["name": "Misrouted topic", "notification": ["title": "Hi"], "topics": ["news"]])

        #expect(try await eventually(timeout: waitingLimit) { try setup.status(devices) == "paused" && setup.status(topic) == "paused" })
        #expect(try await engine.looksAgain(waking: setup.url))
        #expect(try setup.probe.count("SELECT count(*) FROM devices WHERE status = 'invalid'") == 0)
        #expect(try setup.probe.count("SELECT count(*) FROM delivery_failures") == 0)
        #expect(try setup.probe.count("SELECT count(*) FROM deliveries WHERE status = 'failed'") == 0)
        let warnings = try setup.probe.connection.query("SELECT warnings::text FROM runs").map { try $0.decode(String.self, at: 0) }
        #expect(warnings.count == 2 && warnings.allSatisfy { $0.contains("127.0.0.1:\(proxy.port)/v1/projects/") && $0.contains("404") })
        #expect(try setup.probe.count("SELECT count(*) FROM audit_log WHERE action = 'campaign.paused' AND details->>'reason' = 'unexpected_answer'") == 2)
        engine.stop()
        engine.waitUntilStopped(timeout: .seconds(10))

        engine = Self.engine(url: setup.url, sender: try sink.sender())
        defer { engine.stop(); engine.waitUntilStopped(timeout: .seconds(10)) }
        try Self.resume(devices, setup)
        try Self.resume(topic, setup)
        #expect(try await eventually(timeout: waitingLimit) { try setup.status(devices) == "sent" && setup.status(topic) == "sent" })
        let received = sink.emulator.messages()
        #expect(received.compactMap { $0.message["token"]?.stringValue }.sorted() == tokens.sorted())
        #expect(received.compactMap { $0.message["topic"]?.stringValue } == ["news"])
    }

    /// A key without the FCM role (here: another project's, answered 403 PERMISSION_DENIED): the
    /// run pauses at the first answers, no device is failed or marked invalid, and resuming with
    /// the right key sends every device exactly once.
    @Test(.timeLimit(.minutes(5)))
    func aPermissionDeniedPausesAtTheFirstAnswerAndResumingSendsEveryDevice() async throws {
        let tokens = (0..<2000).map(AudienceDeliveryTests.token)
        let refusing = try EmulatorSink(keyProject: "another-project")
        let sink = try EmulatorSink()
        let setup = try AudienceDeliveryTests.Setup()
        defer { setup.probe.close() }
        let segment = try setup.probe.insertAndroidDevicesAndTheirSegment(tokens)
        var engine = Self.engine(url: setup.url, sender: try refusing.sender())
        let campaign = try setup.schedule(["name": "No role", "notification": ["title": "Hi"], "segment": .string(segment)])

        #expect(try await eventually(timeout: waitingLimit) { try setup.status(campaign) == "paused" })
        #expect(try await engine.looksAgain(waking: setup.url))
        // The rounds in flight when the first answers came, no more (two workers, a round each, and one claimed meanwhile).
        let attempts = refusing.emulator.sendAttempts().count
        #expect(attempts > 0 && attempts <= 3 * DeliveryEngine.Configuration().deviceBatchSize, "\(attempts) sent")
        #expect(try setup.probe.count("SELECT count(*) FROM devices WHERE status = 'invalid'") == 0)
        #expect(try setup.probe.count("SELECT count(*) FROM delivery_failures") == 0)
        #expect(try setup.probe.streamed("failed") == 0)
        let warning = try #require(try setup.probe.connection.query("SELECT warnings::text FROM runs").first?.decode(String.self, at: 0))
        #expect(warning.contains("PERMISSION_DENIED") && warning.contains("HERALD_SERVICE_ACCOUNT_KEY"))
        engine.stop()
        engine.waitUntilStopped(timeout: .seconds(10))

        engine = Self.engine(url: setup.url, sender: try sink.sender())
        defer { engine.stop(); engine.waitUntilStopped(timeout: .seconds(10)) }
        try Self.resume(campaign, setup)
        #expect(try await eventually(timeout: waitingLimit) { try setup.status(campaign) == "sent" })
        #expect(sink.emulator.messages().compactMap { $0.message["token"]?.stringValue }.sorted() == tokens.sorted())
        #expect(try setup.probe.streamed("sent") == tokens.count)
        #expect(try setup.probe.streamed("failed") == 0)
    }

    /// A key of another Firebase project: every device answers SENDER_ID_MISMATCH. The run is
    /// stopped after its first answers, the campaign paused with the reason, and no device is
    /// marked invalid.
    @Test(.timeLimit(.minutes(5)))
    func aWrongKeyStopsTheRunAndMarksNoDeviceInvalid() async throws {
        let tokens = (0..<2000).map(AudienceDeliveryTests.token)
        let sink = try EmulatorSink(otherSenders: Set(tokens))
        let setup = try AudienceDeliveryTests.Setup()
        defer { setup.probe.close() }
        let segment = try setup.probe.insertAndroidDevicesAndTheirSegment(tokens)
        let engine = try DeliveryOutboxTests.startEngine(url: setup.url, sink: sink)
        defer { engine.stop(); engine.waitUntilStopped(timeout: .seconds(10)) }
        let campaign = try setup.schedule(["name": "Wrong key", "notification": ["title": "Hi"], "segment": .string(segment)])

        #expect(try await eventually(timeout: waitingLimit) { try setup.status(campaign) == "paused" })
        #expect(try await engine.looksAgain(waking: setup.url))
        #expect(try setup.probe.count("SELECT count(*) FROM devices WHERE status = 'invalid'") == 0)
        // It stopped after its first rounds: the rest were never sent.
        let attempts = sink.emulator.sendAttempts().count
        #expect(attempts > 0 && attempts <= 3 * DeliveryEngine.Configuration().deviceBatchSize, "\(attempts) sent")
        let warning = try #require(try setup.probe.connection.query("SELECT warnings::text FROM runs").first?.decode(String.self, at: 0))
        #expect(warning.contains("SENDER_ID_MISMATCH") && warning.contains("no device was marked invalid"))
        #expect(try setup.probe.count("SELECT count(*) FROM audit_log WHERE action = 'campaign.paused' AND details->>'reason' = 'wrong_credentials'") == 1)

        // The right key: resuming sends every device, those refused before included, exactly once.
        engine.stop()
        engine.waitUntilStopped(timeout: .seconds(10))
        let fixed = try EmulatorSink()
        let again = Self.engine(url: setup.url, sender: try fixed.sender())
        defer { again.stop(); again.waitUntilStopped(timeout: .seconds(10)) }
        try Self.resume(campaign, setup)
        #expect(try await eventually(timeout: waitingLimit) { try setup.status(campaign) == "sent" })
        #expect(fixed.emulator.messages().compactMap { $0.message["token"]?.stringValue }.sorted() == tokens.sorted())
        #expect(try setup.probe.streamed("failed") == 0)
    }

    /// Three devices over their own rate answer 429: the other 97 go out at once, the shared
    /// quota holds nobody, and the three wait to be tried again.
    @Test(.timeLimit(.minutes(5)))
    func aDevicesOwn429HoldsNoOtherDevice() async throws {
        let tokens = (0..<100).map(AudienceDeliveryTests.token)
        let throttled = Set(tokens.prefix(3))
        let sink = try EmulatorSink(faults: FaultInjection(retryAfterSeconds: 120), throttled: throttled)
        let setup = try AudienceDeliveryTests.Setup()
        defer { setup.probe.close() }
        let segment = try setup.probe.insertAndroidDevicesAndTheirSegment(tokens)
        let engine = try SendQuotaTests.engine(url: setup.url, sink: sink, rate: DeliveryEngine.SendRate(project: "herald-test", messages: 600_000),
                                               deviceRound: 256)
        defer { engine.stop(); engine.waitUntilStopped(timeout: .seconds(10)) }
        _ = try setup.schedule(["name": "Mostly fine", "notification": ["title": "Hi"], "segment": .string(segment)])

        #expect(try await eventually(timeout: waitingLimit) { try setup.probe.streamed("sent") == 97 })
        #expect(Set(sink.emulator.messages().compactMap { $0.message["token"]?.stringValue }) == Set(tokens).subtracting(throttled))
        #expect(try setup.probe.streamed("retrying") == 3)
        #expect(try setup.probe.count("SELECT count(*) FROM send_buckets WHERE not_before > now()") == 0)  // nobody held
        #expect(try setup.probe.count("SELECT count(*) FROM devices WHERE status = 'invalid'") == 0)
    }

    /// The devices of one batch to try again wait what FCM asked of each, not the longest of all:
    /// a 503's Retry-After of two seconds is not held to the minute another device's 429 asks.
    @Test(.timeLimit(.minutes(2)))
    func eachRetryOfABatchWaitsItsOwnDelay() throws {
        let tokens = (0..<2).map(AudienceDeliveryTests.token)
        let setup = try AudienceDeliveryTests.Setup()
        defer { setup.probe.close() }
        let segment = try setup.probe.insertAndroidDevicesAndTheirSegment(tokens)
        _ = try setup.schedule(["name": "Mixed", "notification": ["title": "Hi"], "segment": .string(segment)])
        let connection = setup.probe.connection
        #expect(try RunStarter(buckets: AudienceBuckets()).startDueRuns(limit: 10, now: Date(), on: connection).count == 1)
        let round = try StreamedRunStore().claim(owner: "w", limit: 256, lease: .seconds(60), on: connection)
        #expect(round.count == 2)
        let delays: [Duration] = [.seconds(60), .seconds(2)]  // a device's 429, a 503 with Retry-After: 2
        try DeliveryStore().record(zip(round, delays).map { claimed, delay in
            DeliveryStore.Outcome(id: claimed.id, status: .retrying, errorCode: delay == .seconds(2) ? "UNAVAILABLE" : "QUOTA_EXCEEDED",
                                  retryDelay: delay, device: claimed.device)
        }, owner: "w", runIDs: [round[0].runID], on: connection)
        let waits = try connection.query("""
            SELECT extract(epoch FROM next_attempt_at - now())::float8 AS wait FROM device_batches WHERE tokens IS NOT NULL ORDER BY 1
            """).map { try $0.decode(Double.self, column: "wait") }
        #expect(waits.count == 2 && abs(waits[0] - 2) < 1 && abs(waits[1] - 60) < 1, "\(waits)")
    }
}
