import FCMEmulator
import FCMMessage
import HeraldFCM
import Foundation
import HeraldCore
import HeraldJSON
import HeraldPostgres
import HeraldTestSupport
import Testing
@testable import HeraldApp

/// Device audiences end to end: the registry in PostgreSQL, a campaign planned one request per
/// device, sent through the emulator over real sockets, and FCM's answers kept in the registry.
@Suite(.serialized) struct AudienceDeliveryTests {
    let actor = Actor(name: "marketer@example.com")

    static func token(_ index: Int) -> String { "device-\(index):APA91b" + String(repeating: "k", count: 120) }

    /// A database, its pool and the registry's services over it.
    struct Setup {
        let url: String
        let probe: OutboxProbe
        let database: Database
        let devices: DeviceService
        let segments: SegmentService

        init(sender: FCMSenderSource? = nil) throws {
            url = try DeliveryOutboxTests.migratedDatabase()
            probe = try OutboxProbe(url: url)
            database = Database(pool: PostgresPool(url: url, maxConnections: 4, acquireTimeout: .seconds(5)))
            devices = DeviceService(database: database, sender: try sender?.sender())
            segments = SegmentService(database: database)
        }

        /// Registers devices by NDJSON import, as an app backend's bulk upload would.
        func register(_ documents: [JSON]) throws {
            var body: [UInt8]? = Array(documents.map { $0.serializedString() }.joined(separator: "\n").utf8)
            let report = try devices.importDevices(format: .ndjson) { defer { body = nil }; return body }
            #expect(report.failedRows == 0, "\(report.errors)")
        }

        /// A campaign due now with this content, as scheduling leaves it.
        @discardableResult
        func schedule(_ content: JSON) throws -> String {
            try #require(try probe.connection.query("""
                INSERT INTO campaigns (name, status, content, next_run_at)
                VALUES (\(content["name"]?.stringValue ?? "c"), 'scheduled', \(PostgresJSONB(content.serializedString())), now())
                RETURNING id::text
                """).first?.decode(String.self, at: 0))
        }

        /// A device's last-seen time as PostgreSQL writes it in UTC (the export's own format).
        func lastSeen(_ token: String) throws -> String {
            try probe.connection.query("""
                SELECT to_char(last_seen_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') FROM devices WHERE token = \(token)
                """).first?.decode(String.self, at: 0) ?? ""
        }

        func status(_ campaign: String) throws -> String {
            try probe.connection.query("SELECT status FROM campaigns WHERE id = \(campaign)::uuid").first?.decode(String.self, at: 0) ?? ""
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func aPersonalisedCampaignGreetsSaraByNameAndEveryoneElseWithTheDefault() async throws {
        let sink = try EmulatorSink()
        let setup = try Setup()
        defer { setup.probe.close() }
        try setup.register([["token": .string(Self.token(1)), "platform": "android", "language": "fa-IR", "properties": ["first_name": "Sara"]],
                            ["token": .string(Self.token(2)), "platform": "ios", "language": "fa"],
                            ["token": .string(Self.token(3)), "platform": "web", "language": "de", "properties": ["first_name": "Jonas"]]])
        let segment = try setup.segments.create(["name": "Persian speakers", "rule": ["all": [["field": "language", "equals": "fa"]]]], by: actor)
        #expect(try setup.segments.reach(segment.rule) == 2)
        let campaign = try setup.schedule(["name": "Hello", "notification": ["title": "Hello {{first_name | default: \"friend\"}}", "body": "A gift for you"],
                                           "segment": .string(segment.id.description)])
        let engine = try DeliveryOutboxTests.startEngine(url: setup.url, sink: sink)
        defer { engine.stop(); engine.waitUntilStopped(timeout: .seconds(10)) }
        #expect(try await eventually(timeout: waitingLimit) { try setup.status(campaign) == "sent" })

        let titles = Dictionary(uniqueKeysWithValues: sink.emulator.messages().map {
            ($0.message["token"]?.stringValue ?? "", $0.message["notification"]?["title"]?.stringValue ?? "")
        })
        #expect(titles == [Self.token(1): "Hello Sara", Self.token(2): "Hello friend"])  // the German device is not in the segment
        // Streamed: no row per device, two counted as sent.
        #expect(try setup.probe.count("SELECT count(*) FROM deliveries") == 0)
        #expect(try setup.probe.streamed("sent") == 2)
    }

    @Test(.timeLimit(.minutes(2)))
    func devicesFCMNoLongerKnowsAreMarkedInvalidAndLeftOutOfTheNextCampaign() async throws {
        let all = (0..<400).map(Self.token)
        let dead = Set(all.enumerated().filter { $0.offset % 20 == 7 }.map(\.element))  // 5%
        let sink = try EmulatorSink(handlerThreads: 32, unregistered: dead)
        let setup = try Setup()
        defer { setup.probe.close() }
        try setup.register(all.map { ["token": .string($0), "platform": "android"] })
        let segment = try setup.segments.create(["name": "Everyone", "rule": ["all": [["field": "platform", "in": ["android", "ios", "web"]]]]], by: actor)
        let engine = try DeliveryOutboxTests.startEngine(url: setup.url, sink: sink)
        defer { engine.stop(); engine.waitUntilStopped(timeout: .seconds(10)) }

        let first = try setup.schedule(["name": "First", "notification": ["title": "One"], "segment": .string(segment.id.description)])
        #expect(try await eventually(timeout: waitingLimit) { try setup.status(first) == "partially_failed" })
        let invalid = Set(try setup.probe.connection.query("SELECT token FROM devices WHERE status = 'invalid'").map { try $0.decode(String.self, at: 0) })
        #expect(invalid == dead)
        let reasons = try setup.probe.connection.query("SELECT DISTINCT invalid_reason FROM devices WHERE status = 'invalid'").map { try $0.decode(String.self, at: 0) }
        #expect(reasons.count == 1 && reasons[0].hasPrefix("UNREGISTERED"))

        let second = try setup.schedule(["name": "Second", "notification": ["title": "Two"], "segment": .string(segment.id.description)])
        #expect(try await eventually(timeout: waitingLimit) { try setup.status(second) == "sent" })
        let planned = Set(sink.emulator.messages().filter { $0.message["notification"]?["title"] == "Two" }.compactMap { $0.message["token"]?.stringValue })
        #expect(planned.count == 380)
        #expect(planned.isDisjoint(with: dead))
        let counts = try setup.devices.counts()
        #expect(counts.active == 380 && counts.invalid == 20)

        // Registering again brings a device back.
        _ = try setup.devices.register(token: dead.first!, document: ["platform": "android"])
        #expect(try setup.devices.get(dead.first!).status == .active)
    }

    @Test(.timeLimit(.minutes(5)))
    func subscribing2500DevicesToATopicTakesThreeInstanceIDCalls() throws {
        let sink = try EmulatorSink()
        let setup = try Setup(sender: InstanceIDFallback(sink: sink))
        defer { setup.probe.close() }
        try setup.register((0..<2500).map { ["token": .string(Self.token($0)), "platform": "android", "country": "IR"] })
        let segment = try setup.segments.create(["name": "Iran", "rule": ["all": [["field": "country", "equals": "IR"]]]], by: actor)
        let change = try setup.devices.changeTopicToTheEnd(["topic": "herald-bucket-07", "segment": .string(segment.id.description)], by: actor)
        #expect(change == DeviceService.TopicChange(devices: 2500, changed: 2500, failed: 0, calls: 3))
        #expect(sink.emulator.topicManagementCalls == 3)
        #expect(sink.emulator.subscribers(of: "herald-bucket-07").count == 2500)

        let removed = try setup.devices.changeTopicToTheEnd(["topic": "/topics/herald-bucket-07", "tokens": [.string(Self.token(0))], "unsubscribe": true], by: actor)
        #expect(removed.changed == 1 && removed.calls == 1)
        #expect(sink.emulator.subscribers(of: "herald-bucket-07").count == 2499)
        #expect(try setup.probe.count("SELECT count(*) FROM audit_log WHERE action = 'topic.subscribed'") == 2)
    }

    /// The Instance ID API as FCM's guidance asks: a 503 is tried again after its Retry-After, a
    /// token answered INTERNAL is tried again on its own, a 401 gets a fresh access token, and
    /// each token the API refused is named in the answer (a dead one marked invalid).
    @Test(.timeLimit(.minutes(5)))
    func instanceIDCallsAreRetriedRefreshedAndAnsweredPerToken() throws {
        let tokens = (0..<5).map(Self.token)
        let sink = try EmulatorSink(unregistered: [tokens[2]]) {
            $0.instanceIDUnavailableCalls = 1
            $0.instanceIDFlakyTokens = [tokens[1]]
        }
        let setup = try Setup(sender: InstanceIDFallback(sink: sink))
        defer { setup.probe.close() }
        try setup.register(tokens.map { ["token": .string($0), "platform": "android"] })
        let change = try setup.devices.changeTopicToTheEnd(["topic": "news", "tokens": .array(tokens.map(JSON.string))], by: actor)
        #expect(change.changed == 4 && change.failed == 1)
        #expect(change.calls == 3)  // the 503, the call, the INTERNAL token's call of its own
        #expect(change.failures.map(\.token) == [tokens[2]] && change.failures.first?.reason == "NOT_FOUND")
        #expect(sink.emulator.subscribers(of: "news") == Set(tokens).subtracting([tokens[2]]))
        #expect(try setup.devices.get(tokens[2]).status == .invalid)

        // The access token the sender holds is refused (it expired at Google): a fresh one, and on.
        sink.emulator.revokeAccessTokens()
        let again = try setup.devices.changeTopicToTheEnd(["topic": "sport", "tokens": .array(tokens.prefix(2).map(JSON.string))], by: actor)
        #expect(again.changed == 2 && again.failed == 0 && again.calls == 2)
        #expect(sink.emulator.subscribers(of: "sport") == Set(tokens.prefix(2)))
    }

    @Test(.timeLimit(.minutes(5)))
    func devicesUnseenForLongerThanTheLimitAreMarkedStaleAndNotSentTo() async throws {
        let sink = try EmulatorSink()
        let setup = try Setup()
        defer { setup.probe.close() }
        let longAgo = ISO8601DateFormatter().string(from: Date().addingTimeInterval(-300 * 86400))
        try setup.register([["token": "seen-today", "platform": "android"],
                            ["token": "seen-300-days-ago", "platform": "android", "last_seen_at": .string(longAgo)]])
        let engine = try DeliveryOutboxTests.startEngine(url: setup.url, sink: sink)  // 270 days by default
        defer { engine.stop(); engine.waitUntilStopped(timeout: .seconds(10)) }
        #expect(try await eventually(timeout: waitingLimit) { try setup.devices.get("seen-300-days-ago").status == .stale })
        #expect(try setup.devices.get("seen-today").status == .active)
        let campaign = try setup.schedule(["name": "To both", "notification": ["title": "Hi"], "tokens": ["seen-today", "seen-300-days-ago"]])
        #expect(try await eventually(timeout: waitingLimit) { try setup.status(campaign) == "sent" })
        #expect(sink.emulator.messages().map { $0.message["token"]?.stringValue } == ["seen-today"])
        #expect(try setup.devices.counts().stale == 1)
    }

    /// The SQL a segment compiles to and `SegmentRule.matches` agree on every device.
    @Test(.timeLimit(.minutes(5)))
    func aSegmentCountsInPostgreSQLWhatItMatchesInSwift() throws {
        let setup = try Setup()
        defer { setup.probe.close() }
        var random = SystemRandomNumberGenerator()
        let languages = ["fa", "fa-IR", "he", "hi-IN", "vi", "en-US", "de"]
        let documents: [JSON] = (0..<600).map { index in
            var document: JSONObject = ["token": .string(Self.token(index)), "platform": .string(["android", "ios", "web"].randomElement(using: &random)!)]
            if index % 7 != 0 { document["language"] = .string(languages.randomElement(using: &random)!) }
            if index % 5 != 0 { document["app_version"] = .string(["5.1", "5.2", "5.2.1", "5.10", "6"].randomElement(using: &random)!) }
            if index % 3 == 0 { document["properties"] = ["city": .string(["Tehran", "Shiraz"].randomElement(using: &random)!)] }
            if index % 4 == 0 { document["country"] = .string(["IR", "IL", "VN"].randomElement(using: &random)!) }
            return .object(document)
        }
        try setup.register(documents)
        let rules: [JSON] = [
            ["all": [["field": "language", "in": ["fa", "he"]]]],
            ["all": [["field": "language", "equals": "fa-IR"]]],
            ["all": [["field": "app_version", "at_least": "5.2"], ["field": "platform", "not_in": ["web"]]]],
            ["any": [["property": "city", "equals": "Tehran"], ["field": "country", "equals": "VN"]]],
            ["all": [["property": "city", "exists": true], ["field": "language", "not_in": ["de"]]]],
            ["all": [["last_seen_within_days": 1], ["any": [["field": "country", "in": ["IR", "IL"]], ["field": "app_version", "equals": "6"]]]]],
            ["all": [["property": "city", "in": ["Tehran", "Yazd"]]]],
            ["all": [["property": "city", "not_in": ["Tehran"]], ["field": "platform", "not_in": ["web"]]]],
            ["any": [["property": "city", "not_in": ["Shiraz"]], ["field": "country", "equals": "VN"]]],
        ]
        let stored = try setup.devices.list(DeviceFilter(), after: nil, limit: 1000)
        #expect(stored.count == 600)
        for json in rules {
            guard case .success(let rule) = SegmentRule.parse(json) else { Issue.record("refused \(json)"); continue }
            let inSwift = stored.filter { rule.matches($0.device, daysSinceSeen: 0) }.count
            #expect(try setup.segments.reach(rule) == inSwift, "\(json.serializedString())")
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func aCSVImportStoresTheGoodRowsReportsTheBadOnesByLineAndExportsBack() throws {
        let setup = try Setup()
        defer { setup.probe.close() }
        let csv = """
            token,platform,language,app_version,first_name
            tok-1,android,fa-IR,5.2,Sara
            tok 2,android,fa,5.2,Bad
            tok-3,toaster,fa,5.2,Bad
            tok-4,ios,,,"Lee, Jr."
            """
        var chunks = Array(csv.utf8).chunks(of: 7)
        let report = try setup.devices.importDevices(format: .csv) { chunks.isEmpty ? nil : chunks.removeFirst() }
        #expect(report.rows == 4 && report.created == 2 && report.failedRows == 2)
        #expect(report.errors.map(\.line) == [3, 4])
        #expect(report.errors.map(\.error.path) == ["token", "platform"])
        var exported = ""
        try setup.devices.exportCSV { exported += $0 }
        // Each device's kind goes out beside its token (an export imports back as it was).
        #expect(exported == "token,kind,platform,app_id,app_version,language,country,time_zone,last_seen_at,quiet_categories,live_activity_token,properties.first_name\r\n"
            + "tok-1,token,android,,5.2,fa-IR,,,\(try setup.lastSeen("tok-1")),,,Sara\r\n"
            + "tok-4,token,ios,,,,,,\(try setup.lastSeen("tok-4")),,,\"Lee, Jr.\"\r\n")
    }
}

/// Anything that can make a sender for a test's services.
protocol FCMSenderSource {
    func sender() throws -> HeraldFCM.FCMSender
}

extension EmulatorSink: FCMSenderSource {}

/// A sender that subscribes to topics through the Instance ID API, the fallback an operator
/// chooses for an old project (`HERALD_FCM_TOPIC_API=instance-id`).
struct InstanceIDFallback: FCMSenderSource {
    let sink: EmulatorSink
    func sender() throws -> HeraldFCM.FCMSender { try sink.sender(topicAPI: .instanceID) }
}

extension Array {
    func chunks(of size: Int) -> [[Element]] {
        stride(from: 0, to: count, by: size).map { Array(self[$0..<Swift.min($0 + size, count)]) }
    }
}

extension DeliveryInstancesTests {
    /// Two `herald serve` processes send one A/B campaign (50/50, 10% holdout) to 20,000 devices;
    /// one is killed mid-run. Every device outside the holdout gets its own variant, exactly once
    /// but for the requests in flight at the kill; the holdout gets nothing.
    @Test(.timeLimit(.minutes(5)))
    func twoProcessesSendAnABCampaignTo20000DevicesAndAKillRepeatsOnlyWhatWasInFlight() async throws {
        let url = try DeliveryOutboxTests.migratedDatabase()
        let probe = try OutboxProbe(url: url)
        defer { probe.close() }
        let tokens = (0..<20_000).map(AudienceDeliveryTests.token)
        let segment = try probe.insertAndroidDevicesAndTheirSegment(tokens)
        let content: JSON = ["name": "Big A/B", "notification": ["body": "Hello"], "segment": .string(segment), "holdout_percent": 10,
                             "variants": [["key": "A", "weight": 50, "notification": ["title": "A"]], ["key": "B", "weight": 50, "notification": ["title": "B"]]]]
        guard case .success(let spec) = CampaignSpec.parse(content) else { Issue.record("the campaign is invalid"); return }

        // A slow sink: most of a round's time is spent in flight, so the kill lands inside one, and
        // the run lasts long enough (half a minute) for the kill to find the victim holding a round
        // on a busy machine (streamed, it has no planning to wait for first).
        let sink = try EmulatorSink(faults: FaultInjection(slow: 1, slowDelay: .milliseconds(400)), handlerThreads: 256)
        // A lease long enough that the survivor cannot take the victim's round over before it is
        // counted, however busy the machine.
        let victim = try HeraldProcess(databaseURL: url, environment: Self.environment(sink, lease: 10))
        let survivor = try HeraldProcess(databaseURL: url, environment: Self.environment(sink, lease: 10))
        try await victim.waitUntilSending()
        try await survivor.waitUntilSending()
        let campaign = try #require(try probe.connection.query("""
            INSERT INTO campaigns (name, status, content, next_run_at) VALUES ('Big A/B', 'scheduled', \(PostgresJSONB(content.serializedString())), now())
            RETURNING id::text
            """).first?.decode(String.self, at: 0))

        // Killed mid-run, while it holds a round: sent some, and requests of its own in flight.
        // The devices of its batches, the holdout's among them: at least the requests it had in flight.
        let inFlight = try await victim.killHoldingWork(once: { try probe.streamed("sent") >= 4000 }) { try probe.streamedInFlight(pid: victim.pid) }
        #expect(try probe.streamed("sent") >= 4000)
        #expect(try await eventually(timeout: waitingLimit) {
            try probe.count("SELECT count(*) FROM campaigns WHERE status = 'sent'") == 1
        })

        var received: [String: [String]] = [:]
        for message in sink.emulator.messages() {
            received[message.message["token"]?.stringValue ?? "", default: []].append(message.message["notification"]?["title"]?.stringValue ?? "")
        }
        let planner = DevicePlanner(campaign: spec, campaignID: campaign, sendTime: Date())
        var holdout = 0, wrongVariant = 0, missing = 0, duplicates = 0
        for token in tokens {
            let got = received[token] ?? []
            guard let variant = planner.variant(for: Device(token: token, platform: .android)) else {
                holdout += 1
                #expect(got.isEmpty, "a holdout device got \(got)")
                continue
            }
            if got.isEmpty { missing += 1 }
            if got.contains(where: { $0 != variant.key }) { wrongVariant += 1 }
            duplicates += max(0, got.count - 1)
        }
        #expect(missing == 0)
        #expect(wrongVariant == 0)
        #expect(inFlight > 0)
        #expect(duplicates <= inFlight)
        #expect(abs(holdout - 2000) < 300)
        print("20,000 devices, A/B 50/50 with a 10% holdout, two processes, one killed with \(inFlight) requests in flight: "
              + "\(20_000 - holdout) devices sent their own variant, \(holdout) held out and sent nothing, \(duplicates) duplicates")
    }
}

extension AudienceDeliveryTests {
    @Test func eventsThatNameTheirDeviceCountOncePerDevice() throws {
        let setup = try Setup()
        defer { setup.probe.close() }
        let campaign = try setup.schedule(["name": "Rates", "notification": ["title": "Hi"], "tokens": ["d1", "d2"]])
        let events = EventService(database: setup.database)
        let batch: [JSON] = [
            ["id": "e1", "campaign_id": .string(campaign), "variant": "A", "type": "open", "device_token": "d1"],
            ["id": "e2", "campaign_id": .string(campaign), "variant": "A", "type": "open", "device_token": "d1"],  // the same device again
            ["id": "e3", "campaign_id": .string(campaign), "variant": "A", "type": "open", "device_token": "d2"],
            ["id": "e4", "campaign_id": .string(campaign), "variant": "A", "type": "open"],  // no device: counted per event
        ]
        #expect(try events.record(["events": .array(batch)]).recorded == 4)
        let counts = try setup.database.read { try EventStore().counts(campaignID: campaign, on: $0) }
        #expect(counts["A"]?.opens == 3)
        #expect(throws: AppError.self) { try events.record(["id": "e5", "campaign_id": .string(campaign), "variant": "A", "type": "open", "device_token": "bad token"]) }
    }
}

extension AudienceDeliveryTests {
    @Test(.timeLimit(.minutes(2)))
    func theWinnerGoesToTheHoldoutDevicesOnlyAndTheReportCountsDevices() async throws {
        let sink = try EmulatorSink(handlerThreads: 32)
        let setup = try Setup()
        defer { setup.probe.close() }
        let tokens = (0..<200).map(Self.token)
        try setup.register(tokens.map { ["token": .string($0), "platform": "android"] })
        let content: JSON = ["name": "Test then roll out", "notification": ["body": "News"], "tokens": .array(tokens.map(JSON.string)),
                             "holdout_percent": 20,
                             "variants": [["key": "A", "weight": 1, "notification": ["title": "A"]], ["key": "B", "weight": 1, "notification": ["title": "B"]]]]
        let id = try setup.schedule(content)
        let engine = try DeliveryOutboxTests.startEngine(url: setup.url, sink: sink)
        defer { engine.stop(); engine.waitUntilStopped(timeout: .seconds(10)) }
        #expect(try await eventually(timeout: waitingLimit) { try setup.status(id) == "sent" })
        let tested = Set(sink.emulator.messages().compactMap { $0.message["token"]?.stringValue })

        let service = CampaignService(database: setup.database, sender: nil, buckets: AudienceBuckets())
        let campaignID = try #require(CampaignID(id))
        _ = try service.sendWinner(campaignID, variantKey: "B", by: actor, now: Date())
        #expect(try await eventually(timeout: waitingLimit) { try setup.status(id) == "sent" })
        var titles: [String: [String]] = [:]
        for message in sink.emulator.messages() {
            titles[message.message["token"]?.stringValue ?? "", default: []].append(message.message["notification"]?["title"]?.stringValue ?? "")
        }
        let rolledOut = Set(titles.keys).subtracting(tested)
        #expect(rolledOut.count == tokens.count - tested.count)   // every holdout device, and only those
        #expect(rolledOut.allSatisfy { titles[$0] == ["B"] })
        #expect(titles.values.allSatisfy { $0.count == 1 })       // nobody got two messages
        let report = try service.report(campaignID)
        #expect(report.devices == CampaignReport.DeviceReach(reached: 200, failed: 0, nowInvalid: 0))
        #expect(throws: AppError.self) { try service.sendWinner(campaignID, variantKey: "A", by: actor, now: Date()) }  // once per campaign
    }

    /// Recipient time over the real outbox: the run starts, each zone's devices fall due at the
    /// schedule's local time there (Tehran's now, Berlin's and New York's hours later), a zone whose
    /// time had passed is skipped, and each wave closes with its own latest-delivery time. The
    /// clock moves forward by shifting the run's times back, as the hours passing would.
    @Test(.timeLimit(.minutes(2)))
    func eachZonesDevicesFallDueAtTheLocalTimeThereAndAPastZoneIsSkipped() async throws {
        let sink = try EmulatorSink()
        let setup = try Setup()
        defer { setup.probe.close() }
        let zones: [(token: Int, zone: String?)] = [(1, "Asia/Tehran"), (2, "Asia/Tehran"), (3, nil), (4, "Europe/Berlin"),
                                                     (5, "America/New_York"), (6, "Pacific/Kiritimati")]
        try setup.register(zones.map { device in
            var document: JSONObject = ["token": .string(Self.token(device.token)), "platform": "android"]
            if let zone = device.zone { document["time_zone"] = .string(zone) }
            return .object(document)
        })
        // Tehran's clocks read this a few seconds from now: its wave (and the zoneless device's,
        // the schedule being in Tehran) comes first among the zones not yet past.
        let tehran = TimeZone(identifier: "Asia/Tehran")!
        let local = WallClock.local(at: Date().addingTimeInterval(3), in: tehran)
        let id = try setup.schedule(["name": "Good morning", "notification": ["title": "Good morning"],
                                     "tokens": .array(zones.map { .string(Self.token($0.token)) }),
                                     "schedule": ["kind": "once", "at": .string(local.description), "time_zone": "Asia/Tehran"],
                                     "delivery": ["recipient_time": ["past": "skip"], "latest_delivery_minutes": 60]])
        let engine = try DeliveryOutboxTests.startEngine(url: setup.url, sink: sink)
        defer { engine.stop(); engine.waitUntilStopped(timeout: .seconds(10)) }
        func received() -> Set<String> { Set(sink.emulator.messages().compactMap { $0.message["token"]?.stringValue }) }
        #expect(try await eventually(timeout: waitingLimit) { received().count == 3 })
        #expect(received() == [Self.token(1), Self.token(2), Self.token(3)])
        // FCM's answers are recorded after they arrive: wait for the record, not the messages.
        #expect(try await eventually(timeout: waitingLimit) {
            try setup.probe.connection.query("SELECT count(*) FROM deliveries WHERE campaign_id = \(id)::uuid AND status = 'sent'")
                .first?.decode(Int.self, at: 0) == 3
        })

        // Each delivery waits for 09:00-style local time in its own zone, and closes 60 minutes after it.
        let rows = try setup.probe.connection.query("""
            SELECT device_token, status, coalesce(extract(epoch FROM send_at)::float8, 0), coalesce(extract(epoch FROM expires_at)::float8, 0),
                   coalesce(error_message, '')
            FROM deliveries WHERE campaign_id = \(id)::uuid
            """).map { try $0.decode((String, String, Double, Double, String).self) }
        let byToken = Dictionary(uniqueKeysWithValues: rows.map { ($0.0, $0) })
        for (token, zone) in [(4, "Europe/Berlin"), (5, "America/New_York"), (1, "Asia/Tehran")] {
            let wave = WallClock.instant(of: local, in: TimeZone(identifier: zone)!).timeIntervalSince1970
            let row = try #require(byToken[Self.token(token)])
            #expect(abs(row.2 - wave) < 0.001, "\(zone)")
            #expect(abs(row.3 - (wave + 3600)) < 0.001, "\(zone)")
        }
        let kiritimati = try #require(byToken[Self.token(6)])
        #expect(kiritimati.1 == "expired" && kiritimati.4.contains("local time had already passed"))
        #expect(byToken[Self.token(4)]?.1 == "pending" && byToken[Self.token(5)]?.1 == "pending")
        #expect(try setup.status(id) == "sending")
        // The runs API lists the waves: Kiritimati's (expired), Tehran's (sent), Berlin's and New York's (waiting).
        let service = CampaignService(database: setup.database, sender: nil, buckets: AudienceBuckets())
        let campaignID = try #require(CampaignID(id))
        let waves = try #require(try service.runs(campaignID).first?.waves)
        #expect(waves.map { [$0.devices, $0.sent, $0.waiting, $0.expired] } == [[1, 0, 0, 1], [3, 3, 0, 0], [1, 0, 1, 0], [1, 0, 1, 0]])

        // Berlin's wave comes: only Berlin's device is sent.
        let berlinIn = WallClock.instant(of: local, in: TimeZone(identifier: "Europe/Berlin")!).timeIntervalSinceNow
        try setup.shiftClock(of: id, by: berlinIn)
        #expect(try await eventually(timeout: waitingLimit) { received().count == 4 })
        #expect(received().contains(Self.token(4)) && !received().contains(Self.token(5)))

        // New York's wave passes unsent (its latest-delivery time with it): expired, and the run is over.
        let newYorkClosed = WallClock.instant(of: local, in: TimeZone(identifier: "America/New_York")!).timeIntervalSinceNow + 3601 - berlinIn
        try setup.shiftClock(of: id, by: newYorkClosed)
        #expect(try await eventually(timeout: waitingLimit) { try setup.status(id) == "partially_failed" })
        #expect(try setup.probe.connection.query("""
            SELECT status FROM deliveries WHERE device_token = \(Self.token(5))
            """).first?.decode(String.self, at: 0) == "expired")
        #expect(received().count == 4)
    }

    /// Recipient time on topics: Herald puts each registered device in its zone's time-zone topic
    /// (and moves it when its zone changes), then sends the campaign's topic once per zone,
    /// ANDed with that zone's topic, in that zone's wave.
    @Test(.timeLimit(.minutes(2)))
    func topicsAtRecipientTimeGoThroughEachZonesTopicInItsWave() async throws {
        let sink = try EmulatorSink()
        let setup = try Setup(sender: sink)
        defer { setup.probe.close() }
        let zones: [(token: Int, zone: String?)] = [(1, "Asia/Tehran"), (2, "Asia/Tehran"), (3, "Europe/Berlin"), (4, "America/New_York"), (5, nil)]
        try setup.register(zones.map { device in
            var document: JSONObject = ["token": .string(Self.token(device.token)), "platform": "android"]
            if let zone = device.zone { document["time_zone"] = .string(zone) }
            return .object(document)
        })
        let first = try setup.devices.assignTimeZoneTopicsToTheEnd(by: actor)
        #expect(first.devices == 4 && first.changed == 4 && first.unsubscribed == 0)
        #expect(first.zones == ["Asia/Tehran", "Europe/Berlin", "America/New_York"])
        #expect(sink.emulator.subscribers(of: "tz.Asia.Tehran") == [Self.token(1), Self.token(2)])
        #expect(try setup.devices.assignTimeZoneTopicsToTheEnd(by: actor).devices == 0)  // nothing changed since
        // A device that moves to Tehran leaves Berlin's topic for Tehran's.
        _ = try setup.devices.register(token: Self.token(3), document: ["platform": "android", "time_zone": "Asia/Tehran"])
        let moved = try setup.devices.assignTimeZoneTopicsToTheEnd(by: actor)
        #expect(moved.devices == 1 && moved.unsubscribed == 1 && moved.changed == 1)
        #expect(sink.emulator.subscribers(of: "tz.Europe.Berlin").isEmpty && sink.emulator.subscribers(of: "tz.Asia.Tehran").count == 3)

        let local = WallClock.local(at: Date().addingTimeInterval(3), in: TimeZone(identifier: "Asia/Tehran")!)
        let id = try setup.schedule(["name": "Morning news", "notification": ["title": "Good morning"], "topics": ["news"],
                                     "schedule": ["kind": "once", "at": .string(local.description), "time_zone": "Asia/Tehran"],
                                     "delivery": ["recipient_time": ["past": "skip"]]])
        let engine = try DeliveryOutboxTests.startEngine(url: setup.url, sink: sink)
        defer { engine.stop(); engine.waitUntilStopped(timeout: .seconds(10)) }
        #expect(try await eventually(timeout: waitingLimit) { sink.emulator.messages().count == 1 })
        #expect(sink.emulator.messages().first?.message["condition"]?.stringValue == "'news' in topics && 'tz.Asia.Tehran' in topics")
        // Once FCM's answer is recorded (the emulator counts the message before the worker writes it
        // down), the registry's other zone waits for its own wave.
        #expect(try await eventually(timeout: waitingLimit) {
            try setup.probe.connection.query("SELECT count(*) FROM deliveries WHERE campaign_id = \(id)::uuid AND status = 'sent'")
                .first?.decode(Int.self, at: 0) == 1
        })
        let waiting = try setup.probe.connection.query("""
            SELECT target->>'condition', extract(epoch FROM send_at)::float8 FROM deliveries
            WHERE campaign_id = \(id)::uuid AND status = 'pending'
            """).map { try $0.decode((String, Double).self) }
        let newYork = WallClock.instant(of: local, in: TimeZone(identifier: "America/New_York")!).timeIntervalSince1970
        #expect(waiting.count == 1 && waiting.first?.0 == "'news' in topics && 'tz.America.New_York' in topics")
        #expect(waiting.first.map { abs($0.1 - newYork) < 0.001 } == true)
        #expect(try setup.status(id) == "sending")
    }
}

extension AudienceDeliveryTests.Setup {
    /// Moves a campaign's pending deliveries `seconds` nearer, as if that much time had passed.
    func shiftClock(of campaign: String, by seconds: Double) throws {
        _ = try probe.connection.execute("""
            UPDATE deliveries SET next_attempt_at = next_attempt_at - make_interval(secs => \(seconds)),
                send_at = send_at - make_interval(secs => \(seconds)), expires_at = expires_at - make_interval(secs => \(seconds))
            WHERE campaign_id = \(campaign)::uuid AND status IN ('pending', 'retrying')
            """)
        _ = try probe.connection.query("SELECT pg_notify('herald_deliveries', '')")
    }
}

extension AudienceDeliveryTests {
    /// An erasure request reaches everything a campaign kept of a device: a streamed run's failed
    /// device, a delivery to it, the events that name it. The counts stay.
    @Test(.timeLimit(.minutes(5)))
    func forgettingADeviceErasesItsFailuresDeliveriesAndEvents() async throws {
        let gone = Self.token(1)
        let sink = try EmulatorSink(unregistered: [gone])
        let setup = try Setup()
        defer { setup.probe.close() }
        try setup.register([["token": .string(gone), "platform": "android"], ["token": .string(Self.token(2)), "platform": "android"]])
        let segment = try setup.segments.create(["name": "Both", "rule": ["all": [["field": "platform", "equals": "android"]]]], by: actor)
        let engine = try DeliveryOutboxTests.startEngine(url: setup.url, sink: sink)
        defer { engine.stop(); engine.waitUntilStopped(timeout: .seconds(10)) }
        let campaign = try setup.schedule(["name": "Bye", "notification": ["title": "Hi"], "segment": .string(segment.id.description)])
        #expect(try await eventually(timeout: waitingLimit) { try setup.status(campaign) == "partially_failed" })
        // A delivery row of another kind of run, and an event, that name the device too.
        _ = try setup.probe.connection.execute("""
            INSERT INTO deliveries (run_id, campaign_id, variant_key, target, body, device_token, status)
            SELECT id, campaign_id, 'A', jsonb_build_object('token', \(gone)), '{"token": "' || \(gone) || '"}', \(gone), 'pending' FROM runs LIMIT 1
            """)
        _ = try EventService(database: setup.database).record(["events": [["id": "e1", "campaign_id": .string(campaign), "variant": "A",
                                                                           "type": "open", "device_token": .string(gone)]]])
        // A streamed run that skips it (it had moved to this name mid-run) names it too.
        _ = try setup.probe.connection.execute("INSERT INTO run_skips (run_id, token) SELECT id, \(gone) FROM runs LIMIT 1")
        let mentions = """
            SELECT (SELECT count(*) FROM devices WHERE token = $1) + (SELECT count(*) FROM delivery_failures WHERE device_token = $1)
                 + (SELECT count(*) FROM run_skips WHERE token = $1)
                 + (SELECT count(*) FROM deliveries WHERE device_token = $1 OR body LIKE '%' || $1 || '%' OR target::text LIKE '%' || $1 || '%')
                 + (SELECT count(*) FROM events WHERE device_token = $1)
            """
        func count() throws -> Int {
            try setup.probe.connection.query(PostgresQuery(unsafeSQL: mentions, binds: [gone.postgresValue])).first?.decode(Int.self, at: 0) ?? -1
        }
        #expect(try count() == 5)  // the device, its failure, a delivery, an event and a run's skip

        try setup.devices.forget(gone)
        #expect(try count() == 0)
        #expect(try setup.probe.streamed("failed") == 1 && setup.probe.streamed("sent") == 1)  // the counts stay
        #expect(try setup.probe.count("SELECT count(*) FROM deliveries WHERE status = 'cancelled'") == 1)
    }
}
