import FCMEmulator
import Foundation
@testable import HeraldApp
import HeraldCore
import HeraldCrypto
import HeraldHTTP
import HeraldJSON
import HeraldPostgres
import HeraldTestSupport
import Testing

/// Webhooks end to end: a real receiver over HTTP, Herald sending to the emulator, the API.
@Suite(.serialized) struct WebhooksTests {
    /// Receivers on loopback (the test's own) are allowed; retries are scaled down 500 times
    /// (10 s → 20 ms, an hour → 7.2 s).
    static let environment = ["HERALD_WEBHOOK_PRIVATE_ADDRESSES": "true", "HERALD_WEBHOOK_FIRST_RETRY_MS": "20",
                              "HERALD_WEBHOOK_MAX_RETRY_MS": "7200"]

    static func register(_ herald: TestHerald, _ receiver: WebhookReceiver, events: [WebhookEventType]) async throws -> (id: String, secret: String) {
        let created = try await herald.request("POST", "/api/v1/webhooks", json: [
            "url": .string(receiver.url), "events": .array(events.map { .string($0.rawValue) }), "description": "The CRM"])
        #expect(created.status == 201, "\(created.json as Any)")
        return (try #require(created.json?["id"]?.stringValue), try #require(created.json?["secret"]?.stringValue))
    }

    /// Creates a campaign to a topic and schedules it now; returns its id.
    static func sendNow(_ herald: TestHerald, _ name: String) async throws -> String {
        let created = try await herald.request("POST", "/api/v1/campaigns", json: campaignJSON(name: name, topics: ["news"]))
        let id = try #require(created.json?["id"]?.stringValue)
        let scheduled = try await herald.request("POST", "/api/v1/campaigns/\(id)/schedule", headers: ["If-Match": "\"1\""])
        #expect(scheduled.status == 200, "\(scheduled.json as Any)")
        return id
    }

    @Test(.timeLimit(.minutes(3)))
    func aReceiverGetsEveryEventOncePerDeliveryIdSignedByTheDocumentedScheme() async throws {
        let sink = try EmulatorSink()
        let receiver = try WebhookReceiver()
        let herald = try TestHerald(environment: sink.environment.merging(Self.environment) { _, new in new })
        let (webhook, secret) = try await Self.register(herald, receiver, events: WebhookEventType.allCases)
        #expect(secret.hasPrefix("whsec_") && secret.count > 40)
        // The secret is shown once: reading the endpoint again does not show it.
        let read = try await herald.request("GET", "/api/v1/webhooks/\(webhook)")
        #expect(read.status == 200 && read.json?["secret"] == nil && read.json?["url"]?.stringValue == receiver.url)

        let campaign = try await Self.sendNow(herald, "Winter sale")
        #expect(try await eventually(timeout: waitingLimit) { receiver.received.contains { $0.event == "campaign.finished" } })

        let received = receiver.received
        #expect(received.map(\.event) == ["campaign.scheduled", "campaign.started", "run.finished", "campaign.finished"])
        #expect(Set(received.map(\.deliveryID)).count == received.count)  // each delivery once
        let now = Int(Date().timeIntervalSince1970)
        for request in received {
            // The documented scheme, computed here from its parts:
            // t=…,v2=hex(HMAC-SHA256(secret, "<Herald-Webhook-Id>.<t>.<body>")).
            let parts = Dictionary(uniqueKeysWithValues: request.signature.split(separator: ",").map {
                let pair = $0.split(separator: "=", maxSplits: 1)
                return (String(pair[0]), String(pair[1]))
            })
            let timestamp = try #require(parts["t"].flatMap(Int.init))
            #expect(abs(timestamp - now) < 120)
            #expect(parts["v2"] == HMACSHA256.hex(key: Array(secret.utf8), message: Array("\(request.deliveryID).\(timestamp).".utf8) + request.body))
            // The release before's scheme still comes beside it, for receivers not yet moved to v2.
            #expect(parts["v1"] == HMACSHA256.hex(key: Array(secret.utf8), message: Array("\(timestamp).".utf8) + request.body))
            #expect(WebhookSignature.verify(header: request.signature, secret: secret, deliveryID: request.deliveryID, body: request.body, now: now))
            #expect(!WebhookSignature.verify(header: request.signature, secret: secret + "x", deliveryID: request.deliveryID, body: request.body, now: now))
            #expect(!WebhookSignature.verify(header: request.signature, secret: secret, deliveryID: request.deliveryID, body: request.body + [0x20], now: now))
            // The delivery id is signed: the same post under another id (a replay that dodges
            // the receiver's de-duplication) is refused, and so is another time.
            #expect(!WebhookSignature.verify(header: request.signature, secret: secret, deliveryID: request.deliveryID + "0", body: request.body, now: now))
            let otherTime = request.signature.replacingOccurrences(of: "t=\(timestamp)", with: "t=\(timestamp + 1)")
            #expect(!WebhookSignature.verify(header: otherTime, secret: secret, deliveryID: request.deliveryID, body: request.body, now: now))
            // A replay after the window is refused.
            #expect(!WebhookSignature.verify(header: request.signature, secret: secret, deliveryID: request.deliveryID, body: request.body,
                                             now: timestamp + WebhookSignature.replayWindowSeconds + 1))
            let json = try #require(request.json)
            #expect(json["type"]?.stringValue == request.event)
            #expect(json["data"]?["campaign"]?["id"]?.stringValue == campaign)
            #expect(json["data"]?["campaign"]?["name"]?.stringValue == "Winter sale")
        }
        let finished = try #require(received.first { $0.event == "run.finished" }?.json)
        #expect(finished["data"]?["run"]?["sent"]?.doubleValue == 1 && finished["data"]?["run"]?["failed"]?.doubleValue == 0)
        #expect(received.last?.json?["data"]?["campaign"]?["status"]?.stringValue == "sent")

        // The delivery log says the same, newest first, with the receiver's answer.
        let log = try await herald.request("GET", "/api/v1/webhooks/\(webhook)/deliveries")
        let items = try #require(log.json?["items"]?.arrayValue)
        #expect(items.compactMap { $0["event"]?.stringValue } == received.map(\.event).reversed())
        #expect(items.allSatisfy { $0["status"]?.stringValue == "delivered" && $0["response_status"]?.doubleValue == 204 && $0["attempts"]?.doubleValue == 1 })
        #expect(items.compactMap { $0["id"]?.stringValue } == received.map(\.deliveryID).reversed())

        // A manual redelivery posts the same event again under a new delivery id.
        let first = try #require(items.last?["id"]?.stringValue)
        let redelivered = try await herald.request("POST", "/api/v1/webhooks/\(webhook)/deliveries/\(first)/redeliver")
        #expect(redelivered.status == 202)
        #expect(try await eventually(timeout: waitingLimit) { receiver.received.count == 5 })
        let again = receiver.received[4]
        #expect(again.event == "campaign.scheduled" && again.deliveryID != first && again.json?["id"] == received[0].json?["id"])
        #expect(try await herald.request("POST", "/api/v1/webhooks/\(webhook)/deliveries/999999/redeliver").status == 404)
    }

    /// The receiver is down for as long as the default schedule tries in five minutes (five
    /// failed attempts at 10, 20, 40, 80 and 160 s, scaled). Meanwhile only the oldest event is
    /// tried, the rest waiting behind it; once the receiver is back it gets everything in order.
    @Test(.timeLimit(.minutes(3)))
    func aReceiverDownFiveMinutesGetsEverythingInOrderOnceItIsBack() async throws {
        let receiver = try WebhookReceiver(.down)
        let herald = try TestHerald(environment: Self.environment.merging(["HERALD_SCHEDULER": "true"]) { _, new in new })
        let (webhook, secret) = try await Self.register(herald, receiver, events: [.campaignScheduled, .campaignCancelled])
        var ids: [String] = []
        for index in 0..<4 {
            let created = try await herald.request("POST", "/api/v1/campaigns", json: campaignJSON(
                name: "Later \(index)", topics: ["news"], schedule: ["kind": "once", "at": .string(utcLocal(Date().addingTimeInterval(86_400))), "time_zone": "UTC"]))
            let id = try #require(created.json?["id"]?.stringValue)
            let scheduled = try await herald.request("POST", "/api/v1/campaigns/\(id)/schedule", headers: ["If-Match": "\"1\""])
            #expect(scheduled.status == 200)
            if index % 2 == 1 {
                let version = scheduled.json?["version"]?.doubleValue.map { Int($0) } ?? 0
                #expect(try await herald.request("POST", "/api/v1/campaigns/\(id)/cancel", headers: ["If-Match": "\"\(version)\""]).status == 200)
            }
            ids.append(id)
        }
        // Five failed attempts of the oldest event.
        #expect(try await eventually(timeout: waitingLimit) { receiver.received.count >= 5 })
        let whileDown = receiver.received
        #expect(Set(whileDown.map(\.deliveryID)).count == 1, "only the oldest event is tried while the receiver is down")
        let log = try await herald.request("GET", "/api/v1/webhooks/\(webhook)/deliveries").json?["items"]?.arrayValue ?? []
        let oldest = try #require(log.last)
        #expect(oldest["status"]?.stringValue == "pending" && (oldest["attempts"]?.doubleValue ?? 0) >= 5)
        #expect(oldest["response_status"]?.doubleValue == 503 && oldest["last_error"]?.stringValue?.contains("503") == true)
        #expect(oldest["next_attempt_at"]?.stringValue != nil)

        receiver.set(.up)
        #expect(try await eventually(timeout: waitingLimit) { receiver.received.filter { $0.answered == 204 }.count == 6 })
        let delivered = receiver.received.filter { $0.answered == 204 }
        let expected = [(ids[0], "campaign.scheduled"), (ids[1], "campaign.scheduled"), (ids[1], "campaign.cancelled"),
                        (ids[2], "campaign.scheduled"), (ids[3], "campaign.scheduled"), (ids[3], "campaign.cancelled")]
        #expect(delivered.map { "\($0.json?["data"]?["campaign"]?["id"]?.stringValue ?? "")/\($0.event)" } == expected.map { "\($0.0)/\($0.1)" })
        #expect(Set(delivered.map(\.deliveryID)).count == 6)
        #expect(delivered.allSatisfy { WebhookSignature.verify(header: $0.signature, secret: secret, deliveryID: $0.deliveryID, body: $0.body,
                                                               now: Int(Date().timeIntervalSince1970)) })
        // Nothing was posted twice once it was answered.
        #expect(try await eventually(timeout: waitingLimit) {
            try await herald.request("GET", "/api/v1/webhooks/\(webhook)").json?["deliveries_pending"]?.doubleValue == 0
        })
        #expect(receiver.received.filter { $0.answered == 204 }.count == 6)
        print("webhooks: receiver down for \(whileDown.count) attempts of the oldest event (5 minutes of the default schedule, scaled 500×), then 6 events delivered in order")
    }

    /// Schedules `count` campaigns for tomorrow, each a `campaign.scheduled` event; returns their ids.
    static func scheduleLater(_ herald: TestHerald, _ count: Int) async throws -> [String] {
        var ids: [String] = []
        for index in 0..<count {
            let created = try await herald.request("POST", "/api/v1/campaigns", json: campaignJSON(
                name: "Later \(index)", topics: ["news"], schedule: ["kind": "once", "at": .string(utcLocal(Date().addingTimeInterval(86_400))), "time_zone": "UTC"]))
            let id = try #require(created.json?["id"]?.stringValue)
            #expect(try await herald.request("POST", "/api/v1/campaigns/\(id)/schedule", headers: ["If-Match": "\"1\""]).status == 200)
            ids.append(id)
        }
        return ids
    }

    /// A receiver that answers 200 with a body of 50 MB got the event: it is delivered once (the
    /// answer read up to the log's 64 KiB, the rest left unread), and the events after it flow.
    @Test(.timeLimit(.minutes(3)))
    func aTwoHundredWithFiftyMegabytesIsDeliveredOnceAndTheNextEventsFlow() async throws {
        let receiver = try WebhookReceiver(.huge)
        let herald = try TestHerald(environment: Self.environment)
        let (webhook, _) = try await Self.register(herald, receiver, events: [.campaignScheduled])
        let ids = try await Self.scheduleLater(herald, 3)
        #expect(try await eventually(timeout: waitingLimit) {
            try await herald.request("GET", "/api/v1/webhooks/\(webhook)/deliveries").json?["items"]?.arrayValue?
                .filter { $0["status"]?.stringValue == "delivered" }.count == 3
        })
        let items = try await herald.request("GET", "/api/v1/webhooks/\(webhook)/deliveries").json?["items"]?.arrayValue ?? []
        #expect(items.allSatisfy { $0["attempts"]?.doubleValue == 1 && $0["response_status"]?.doubleValue == 200 && $0["last_error"] == .null },
                "\(items)")
        #expect(receiver.received.map { $0.json?["data"]?["campaign"]?["id"]?.stringValue ?? "" } == ids)
        #expect(Set(receiver.received.map(\.deliveryID)).count == 3)
    }

    /// With the longest timeout allowed under the old fixed lease's reach (90 s against 60 s),
    /// two instances' dispatchers share one endpoint whose receiver holds a post: the endpoint's
    /// lease outlasts the post's timeout while it is in flight, so the other dispatcher never
    /// takes it over, and each event is posted once.
    @Test(.timeLimit(.minutes(3)))
    func withANinetySecondTimeoutTwoDispatchersNeverPostOneEventTwice() async throws {
        let receiver = try WebhookReceiver(.hanging)
        let environment = Self.environment.merging(["HERALD_WEBHOOK_TIMEOUT_SECONDS": "90"]) { $1 }
        let first = try TestHerald(environment: environment)
        let second = try TestHerald(databaseURL: first.databaseURL, environment: environment)
        _ = try await Self.register(first, receiver, events: [.campaignScheduled])
        let ids = try await Self.scheduleLater(second, 4)
        #expect(try await eventually(timeout: waitingLimit) { receiver.hangingNow == 1 })
        // While the post hangs, its endpoint is held for longer than the post may take.
        let leaseLeft = try first.server.application.database.pool.withConnection { connection in
            try connection.query("SELECT extract(epoch FROM lease_expires_at - now())::float8 FROM webhooks").first?.decode(Double.self, at: 0)
        }
        #expect((leaseLeft ?? 0) > 90, "the lease runs out in \(leaseLeft ?? 0) s, before a 90 s post times out")
        receiver.release()
        #expect(try await eventually(timeout: waitingLimit) { receiver.received.count >= 4 })
        #expect(try await eventually(timeout: waitingLimit) {
            try await first.request("GET", "/api/v1/webhooks").json?["items"]?.arrayValue?.first?["deliveries_pending"]?.doubleValue == 0
        })
        #expect(receiver.received.map { $0.json?["data"]?["campaign"]?["id"]?.stringValue ?? "" } == ids)
        #expect(Set(receiver.received.map(\.deliveryID)).count == receiver.received.count, "an event was posted twice")
    }

    /// Both webhook threads held by receivers that never answer, while a campaign to 3,000
    /// devices sends at the project's full quota: the sends do not wait for them.
    @Test(.timeLimit(.minutes(4)))
    func receiversThatHangDoNotSlowSendsAtTheFullQuota() async throws {
        let sink = try EmulatorSink(handlerThreads: 32)
        let environment = sink.environment.merging(Self.environment) { _, new in new }
            .merging(["HERALD_FCM_RATE_PER_MINUTE": "60000", "HERALD_WEBHOOK_TIMEOUT_SECONDS": "120"]) { _, new in new }
        let herald = try TestHerald(environment: environment)
        let tokens = (0..<3000).map { "hang-\($0)-" + String(repeating: "x", count: 100) }
        let segment = try herald.server.application.database.pool.withConnection { connection in
            try DeviceStore().upsert(tokens.map { Device(token: $0, platform: .android) }, on: connection)
            return try connection.query("""
                INSERT INTO segments (name, rule) VALUES ('Everyone', '{"all": [{"field": "platform", "equals": "android"}]}') RETURNING id::text
                """).first!.decode(String.self, at: 0)
        }
        func send(_ name: String) async throws -> Duration {
            let before = sink.emulator.messages().count
            let created = try await herald.request("POST", "/api/v1/campaigns", json: [
                "name": .string(name), "notification": ["title": .string(name)], "segment": .string(segment)])
            let id = try #require(created.json?["id"]?.stringValue)
            #expect(try await herald.request("POST", "/api/v1/campaigns/\(id)/schedule", headers: ["If-Match": "\"1\""]).status == 200)
            #expect(try await eventually(timeout: waitingLimit) {
                try await herald.request("GET", "/api/v1/campaigns/\(id)").json?["status"]?.stringValue == "sent"
            })
            let times = sink.emulator.sendAttempts().suffix(sink.emulator.messages().count - before).map(\.receivedAt)
            return times.min().map { $0.duration(to: times.max()!) } ?? .zero
        }
        // Side by side: receivers that answer, then receivers that hang.
        let answering = try [WebhookReceiver(), WebhookReceiver()]
        for receiver in answering { _ = try await Self.register(herald, receiver, events: WebhookEventType.allCases) }
        let withAnswers = try await send("Answered")
        let hanging = try [WebhookReceiver(.hanging), WebhookReceiver(.hanging)]
        for receiver in hanging { _ = try await Self.register(herald, receiver, events: WebhookEventType.allCases) }
        let whileHanging = try await send("Hung")
        // Both dispatcher threads were held the whole time, and are still.
        #expect(hanging.allSatisfy { $0.hangingNow == 1 }, "each hanging receiver holds one request: \(hanging.map(\.hangingNow))")
        #expect(sink.emulator.messages().count == 6000)
        print("webhooks: 3,000 devices at 1,000 a second, first to last message: \(withAnswers) with receivers answering, "
              + "\(whileHanging) with both webhook threads held by receivers that never answer")
        hanging.forEach { $0.release() }
    }

    @Test(.timeLimit(.minutes(2)))
    func privateAddressesAndRedirectsCannotBeUsedToReachInsideTheNetwork() async throws {
        // Private addresses off (the default): the loopback receiver is never connected to.
        let receiver = try WebhookReceiver()
        let herald = try TestHerald(environment: ["HERALD_WEBHOOK_FIRST_RETRY_MS": "20", "HERALD_WEBHOOK_MAX_ATTEMPTS": "2"])
        let (webhook, _) = try await Self.register(herald, receiver, events: [.campaignScheduled])
        let created = try await herald.request("POST", "/api/v1/campaigns", json: campaignJSON(
            name: "Inside", topics: ["news"], schedule: ["kind": "once", "at": .string(utcLocal(Date().addingTimeInterval(86_400))), "time_zone": "UTC"]))
        let id = try #require(created.json?["id"]?.stringValue)
        #expect(try await herald.request("POST", "/api/v1/campaigns/\(id)/schedule", headers: ["If-Match": "\"1\""]).status == 200)
        #expect(try await eventually(timeout: waitingLimit) {
            try await herald.request("GET", "/api/v1/webhooks/\(webhook)").json?["deliveries_dead"]?.doubleValue == 1
        })
        #expect(receiver.received.isEmpty)
        let delivery = try await herald.request("GET", "/api/v1/webhooks/\(webhook)/deliveries").json?["items"]?.arrayValue?.first
        #expect(delivery?["status"]?.stringValue == "dead" && delivery?["attempts"]?.doubleValue == 2)
        #expect(delivery?["last_error"]?.stringValue?.contains("loopback address") == true, "\(delivery as Any)")

        // A receiver that redirects (to a metadata address) is not followed: the attempt failed.
        let redirecting = try StubServer { _ in
            .respond(EmulatorResponse(status: 307, headers: [("Location", "http://169.254.169.254/latest/meta-data/")]), delay: nil)
        }
        let other = try TestHerald(environment: Self.environment.merging(["HERALD_WEBHOOK_MAX_ATTEMPTS": "1"]) { _, new in new })
        let hook = try await other.request("POST", "/api/v1/webhooks", json: [
            "url": .string("http://127.0.0.1:\(redirecting.port)/hook"), "events": ["campaign.scheduled"]]).json?["id"]?.stringValue
        let moved = try #require(try await other.request("POST", "/api/v1/campaigns", json: campaignJSON(
            name: "Moved", topics: ["news"], schedule: ["kind": "once", "at": .string(utcLocal(Date().addingTimeInterval(86_400))), "time_zone": "UTC"])).json?["id"]?.stringValue)
        #expect(try await other.request("POST", "/api/v1/campaigns/\(moved)/schedule", headers: ["If-Match": "\"1\""]).status == 200)
        let hookID = try #require(hook)
        #expect(try await eventually(timeout: waitingLimit) {
            try await other.request("GET", "/api/v1/webhooks/\(hookID)").json?["deliveries_dead"]?.doubleValue == 1
        })
        let failed = try await other.request("GET", "/api/v1/webhooks/\(hookID)/deliveries").json?["items"]?.arrayValue?.first
        #expect(failed?["response_status"]?.doubleValue == 307 && redirecting.acceptedConnections == 1)
        redirecting.stop()

        // A receiver whose certificate no CA vouches for gets nothing: the attempt fails on TLS and says so.
        let certificate = try SelfSignedCertificate(keys: try RSAKeyPair.generate())
        let untrusted = try StubServer(tls: certificate) { _ in .respond(EmulatorResponse(status: 204), delay: nil) }
        defer { untrusted.stop() }
        let tlsHook = try #require(try await other.request("POST", "/api/v1/webhooks", json: [
            "url": .string("https://127.0.0.1:\(untrusted.port)/hook"), "events": ["campaign.cancelled"]]).json?["id"]?.stringValue)
        let version = try await other.request("GET", "/api/v1/campaigns/\(moved)").json?["version"]?.intValue ?? 0
        #expect(try await other.request("POST", "/api/v1/campaigns/\(moved)/cancel", headers: ["If-Match": "\"\(version)\""]).status == 200)
        #expect(try await eventually(timeout: waitingLimit) {
            try await other.request("GET", "/api/v1/webhooks/\(tlsHook)").json?["deliveries_dead"]?.doubleValue == 1
        })
        let refusedTLS = try await other.request("GET", "/api/v1/webhooks/\(tlsHook)/deliveries").json?["items"]?.arrayValue?.first
        #expect(refusedTLS?["response_status"] == .null && refusedTLS?["last_error"]?.stringValue?.contains("certificate") == true,
                "\(refusedTLS as Any)")
    }

    @Test(.timeLimit(.minutes(2)))
    func anEndpointIsRefusedWithTheFieldAndTheRuleAndOnlyAdminsManageThem() async throws {
        let herald = try TestHerald(environment: ["HERALD_SCHEDULER": "false"])
        let bad = try await herald.request("POST", "/api/v1/webhooks", json: [
            "url": "ftp://example.com/hook", "events": ["campaign.scheduled", "campaign.exploded"], "description": .string(String(repeating: "d", count: 201))])
        #expect(bad.status == 422)
        let errors = bad.json?["errors"]?.arrayValue ?? []
        #expect(Set(errors.compactMap { $0["path"]?.stringValue }) == ["url", "events", "description"], "\(bad.json as Any)")
        #expect(errors.contains { $0["message"]?.stringValue?.contains("unknown event “campaign.exploded”") == true })
        #expect(try await herald.request("GET", "/api/v1/webhooks").json?["items"]?.arrayValue?.isEmpty == true)

        let editor = try herald.server.application.database.pool.withConnection { connection in
            try APIKeyStore().create(name: "editor", role: .editor, scope: .full, createdBy: "test", on: connection).key
        }
        let refused = try await herald.request("POST", "/api/v1/webhooks", json: ["url": "https://crm.example.com/hook", "events": ["campaign.scheduled"]],
                                               headers: ["Authorization": "Bearer \(editor)"])
        #expect(refused.status == 403)
        let created = try await herald.request("POST", "/api/v1/webhooks", json: ["url": "https://crm.example.com/hook", "events": ["campaign.scheduled"]])
        #expect(created.status == 201 && created.header("Cache-Control") == "no-store")
        let id = try #require(created.json?["id"]?.stringValue)
        #expect(try await herald.request("DELETE", "/api/v1/webhooks/\(id)").status == 204)
        #expect(try await herald.request("GET", "/api/v1/webhooks/\(id)").status == 404)
        let audit = try await herald.request("GET", "/api/v1/audit").json?["items"]?.arrayValue ?? []
        #expect(audit.compactMap { $0["action"]?.stringValue }.filter { $0.hasPrefix("webhook.") } == ["webhook.deleted", "webhook.created"])
    }
}

/// The webhooks pages, as an admin uses them without JavaScript: register an endpoint (a refusal
/// keeps the form), copy its secret, read its log, post an event again, delete it after confirming.
@Suite(.serialized) struct WebhookPagesTests {
    static func text(_ response: HTTPResponse) -> String { String(decoding: response.body, as: UTF8.self) }

    @Test(.timeLimit(.minutes(3)))
    func anAdminRegistersReadsTheLogRedeliversAndDeletesAnEndpoint() async throws {
        let receiver = try WebhookReceiver()
        let browser = try PagesBrowser(role: .admin, environment: WebhooksTests.environment)
        let herald = browser.harness.herald

        let refused = browser.post("/webhooks", [("url", "ftp://crm.example.com/hook"), ("description", "The CRM"), ("events", "run.finished")])
        #expect(refused.status == 422)
        let page = Self.text(refused)
        #expect(page.contains("The URL must start with https:// (or http://).") && page.contains("value=\"ftp://crm.example.com/hook\"")
                && page.contains("value=\"The CRM\"") && page.contains("value=\"run.finished\" checked"))
        #expect(try await herald.request("GET", "/api/v1/webhooks").json?["items"]?.arrayValue?.isEmpty == true)

        let created = Self.text(browser.post("/webhooks", [("url", receiver.url), ("description", "The CRM"), ("events", "campaign.scheduled")]))
        let secret = try #require(created.firstMatch(of: #/<code dir="ltr">(whsec_[A-Za-z0-9_-]+)</code>/#)?.output.1)
        let listed = try #require(try await herald.request("GET", "/api/v1/webhooks").json?["items"]?.arrayValue?.first)
        let id = try #require(listed["id"]?.stringValue)
        #expect(!Self.text(browser.get("/webhooks")).contains(String(secret)))  // shown once

        // An event reaches the receiver and shows in the log.
        let campaign = try #require(try await herald.request("POST", "/api/v1/campaigns", json: campaignJSON(
            name: "Logged", topics: ["news"], schedule: ["kind": "once", "at": .string(utcLocal(Date().addingTimeInterval(86_400))), "time_zone": "UTC"]))
            .json?["id"]?.stringValue)
        #expect(try await herald.request("POST", "/api/v1/campaigns/\(campaign)/schedule", headers: ["If-Match": "\"1\""]).status == 200)
        #expect(try await eventually(timeout: waitingLimit) { receiver.received.count == 1 })
        #expect(WebhookSignature.verify(header: receiver.received[0].signature, secret: String(secret), deliveryID: receiver.received[0].deliveryID,
                                        body: receiver.received[0].body, now: Int(Date().timeIntervalSince1970)))
        #expect(try await eventually(timeout: waitingLimit) { Self.text(browser.get("/webhooks/\(id)")).contains("delivered") })
        let log = Self.text(browser.get("/webhooks/\(id)"))
        #expect(log.contains("campaign.scheduled") && log.contains("answered HTTP 204"))

        // Post it again from the log.
        let delivery = receiver.received[0].deliveryID
        let again = Self.text(browser.post("/webhooks/\(id)/deliveries/\(delivery)/redeliver", []))
        #expect(again.contains("The campaign.scheduled event will be posted again"))
        #expect(try await eventually(timeout: waitingLimit) { receiver.received.count == 2 })

        // Delete: a confirmation first, then gone.
        let confirm = Self.text(browser.post("/webhooks/\(id)/delete", []))
        #expect(confirm.contains("Delete this webhook?") && confirm.contains(receiver.url))
        #expect(try await herald.request("GET", "/api/v1/webhooks/\(id)").status == 200)
        let deleted = Self.text(browser.post("/webhooks/\(id)/delete", [("confirmed", "yes")]))
        #expect(deleted.contains("Deleted the webhook to \(receiver.url)."), "\(deleted.split(separator: "\n").filter { $0.contains("flash") || $0.contains("Deleted") })")
        #expect(try await herald.request("GET", "/api/v1/webhooks/\(id)").status == 404)
    }
}
