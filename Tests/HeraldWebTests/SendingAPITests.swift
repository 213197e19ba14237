import HeraldTestSupport
import FCMEmulator
import HeraldJSON
import Testing

/// Preview, validate and test-send against the FCM emulator: what the scheduler would send, FCM's
/// opinion of it, and a real send to a few tokens.
@Suite(.serialized) final class SendingAPITests {
    let emulator: EmulatorSink
    let herald: TestHerald

    init() throws {
        emulator = try EmulatorSink()
        var environment = emulator.environment
        environment["HERALD_SCHEDULER"] = "false"
        herald = try TestHerald(environment: environment)
    }

    static let abCampaign: JSON = [
        "name": "A/B", "notification": ["title": "Hello", "body": "World"], "topics": ["news", "sport"],
        "options": ["priority": "high", "expiry_seconds": 3600],
        "variants": [["key": "A", "weight": 50], ["key": "B", "weight": 50, "notification": ["title": "Hi there"]]],
    ]

    func create(_ campaign: JSON) async throws -> String {
        let created = try await herald.request("POST", "/api/v1/campaigns", json: campaign)
        #expect(created.status == 201)
        return try #require(created.json?["id"]?.stringValue)
    }

    @Test func previewShowsTheExactPlannedRequests() async throws {
        let id = try await create(Self.abCampaign)
        let preview = try await herald.request("GET", "/api/v1/campaigns/\(id)/preview")
        #expect(preview.status == 200)
        let requests = try #require(preview.json?["requests"]?.arrayValue)
        #expect(Set(requests.compactMap { $0["variant"]?.stringValue }) == ["A", "B"])
        for request in requests {
            let message = try #require(request["body"]?["message"])
            let condition = try #require(message["condition"]?.stringValue)
            // Both target topics, OR'd, and this variant's audience buckets.
            #expect(condition.contains("'news' in topics") && condition.contains("'sport' in topics") && condition.contains("herald-bucket-"))
            #expect(message["android"]?["ttl"] == "3600s")
            #expect(message["apns"]?["headers"]?["apns-priority"] == "10")
            #expect(request["body"]?["validate_only"] == false)
            #expect((request["payload_bytes"]?.intValue ?? 9999) <= 2048)
        }
        let titles = Set(requests.compactMap { $0["body"]?["message"]?["notification"]?["title"]?.stringValue })
        #expect(titles == ["Hello", "Hi there"])
    }

    @Test func validateIsADryRunThatFCMAccepts() async throws {
        let id = try await create(Self.abCampaign)
        let validated = try await herald.request("POST", "/api/v1/campaigns/\(id)/validate")
        #expect(validated.status == 200)
        #expect(validated.json?["valid"] == true)
        #expect(validated.json?["results"]?.arrayValue?.allSatisfy { $0["result"] == "valid" && $0["status"] == nil } == true)
        #expect(emulator.emulator.messages().isEmpty, "validate_only must not deliver anything")
    }

    /// A campaign to devices is checked as it would be sent: personalised, for real devices of
    /// its audience (FCM refuses a made-up token, so a placeholder checked nothing).
    @Test func validatingACampaignToDevicesChecksRealDevicesOfItsAudience() async throws {
        let tokens = (1...3).map { "validate-\($0):" + String(repeating: "v", count: 140) }
        for (index, token) in tokens.enumerated() {
            #expect(try await herald.request("PUT", "/api/v1/devices/\(token)",
                                             json: ["platform": "android", "properties": ["first_name": .string("Name\(index)")]]).status == 201)
        }
        let segment = try #require(try await herald.request("POST", "/api/v1/segments", json: [
            "name": "Validated", "rule": ["all": [["field": "platform", "equals": "android"]]]]).json?["id"]?.stringValue)
        let id = try await create(["name": "Personal", "notification": ["title": "Hi {{first_name | default: \"friend\"}}"], "segment": .string(segment)])
        let before = emulator.emulator.sendAttempts().count
        let validated = try await herald.request("POST", "/api/v1/campaigns/\(id)/validate")
        #expect(validated.status == 200)
        #expect(validated.json?["valid"] == true)
        let results = try #require(validated.json?["results"]?.arrayValue)
        let targets = Set(results.compactMap { $0["target"]?["token"]?.stringValue })
        #expect(targets == Set(tokens))
        #expect(results.count == 3)
        let checked = emulator.emulator.sendAttempts().dropFirst(before).compactMap(\.message)
        #expect(Set(checked.compactMap { $0["token"]?.stringValue }) == Set(tokens))
        #expect(Set(checked.compactMap { $0["notification"]?["title"]?.stringValue }) == ["Hi Name0", "Hi Name1", "Hi Name2"])
        #expect(emulator.emulator.messages().isEmpty, "validate_only must not deliver anything")

        // An audience with no device has nothing to check the messages against.
        let empty = try #require(try await herald.request("POST", "/api/v1/segments", json: [
            "name": "Nobody", "rule": ["all": [["field": "country", "equals": "AQ"]]]]).json?["id"]?.stringValue)
        let nobody = try await create(["name": "Nobody", "notification": ["title": "Hi"], "segment": .string(empty)])
        let refused = try await herald.request("POST", "/api/v1/campaigns/\(nobody)/validate")
        #expect(refused.status == 409)
        #expect(refused.json?["code"] == "no_devices")
    }

    @Test func aTestMessageGoesToEachTokenWithItsResult() async throws {
        let id = try await create(Self.abCampaign)
        let sent = try await herald.request("POST", "/api/v1/campaigns/\(id)/test", json: ["tokens": ["token-1", "token-2"], "variant": "B"])
        #expect(sent.status == 200)
        let results = try #require(sent.json?["results"]?.arrayValue)
        #expect(results.map { $0["status"] } == ["sent", "sent"])
        #expect(results.allSatisfy { $0["name"]?.stringValue?.hasPrefix("projects/herald-test/messages/") == true })
        let received = emulator.emulator.messages()
        #expect(Set(received.compactMap { $0.message["token"]?.stringValue }) == ["token-1", "token-2"])
        #expect(received.allSatisfy { $0.message["notification"]?["title"] == "Hi there" })
    }

    @Test func aTestMessageCarriesItsOwnAnalyticsLabelAndIsAudited() async throws {
        let id = try await create(Self.abCampaign.mergePatched(with: ["options": ["analytics_label": "spring"]]))
        let sent = try await herald.request("POST", "/api/v1/campaigns/\(id)/test", json: ["tokens": ["fcm-token:APA91b_x-1"], "variant": "B"])
        #expect(sent.status == 200)
        let received = try #require(emulator.emulator.messages().first)
        #expect(received.message["fcm_options"]?["analytics_label"] == .string("herald-test-\(id.prefix(8))"))
        let audit = try #require(try await herald.request("GET", "/api/v1/audit?limit=5").json?["items"]?.arrayValue?.first)
        #expect(audit["action"] == "campaign.test_sent")
        #expect(audit["object_id"] == .string(id))
        #expect(audit["details"] == ["variant": "B", "tokens": 1, "sent": 1, "failed": 0])
    }

    @Test func aTokenNotShapedLikeAnFCMTokenStopsTheWholeTestSend() async throws {
        let id = try await create(Self.abCampaign)
        let refused = try await herald.request("POST", "/api/v1/campaigns/\(id)/test", json: ["tokens": ["good-token", "bad token with spaces", "ok:1"]])
        #expect(refused.status == 422)
        let errors = try #require(refused.json?["errors"]?.arrayValue)
        #expect(errors.count == 1)
        #expect(errors.first?["path"] == "tokens[1]")
        #expect(errors.first?["code"] == "invalid_token")
        #expect(errors.first?["message"]?.stringValue?.hasPrefix("the token on line 2 holds a space") == true)
        #expect(emulator.emulator.sendAttempts().isEmpty)
        let audit = try await herald.request("GET", "/api/v1/audit?limit=5").json?["items"]?.arrayValue ?? []
        #expect(!audit.contains { $0["action"] == "campaign.test_sent" })
    }

    @Test func badTestRequestsAreRefusedWithEveryReason() async throws {
        let id = try await create(Self.abCampaign)
        let tooMany = JSON.array((0..<21).map { .string("t\($0)") })
        let refused = try await herald.request("POST", "/api/v1/campaigns/\(id)/test", json: ["tokens": tooMany, "extra": 1])
        #expect(refused.status == 422)
        let paths = Set(refused.json?["errors"]?.arrayValue?.compactMap { $0["path"]?.stringValue } ?? [])
        #expect(paths == ["tokens", "extra"])
        let unknown = try await herald.request("POST", "/api/v1/campaigns/\(id)/test", json: ["tokens": ["t"], "variant": "Z"])
        #expect(unknown.status == 422)
        #expect(unknown.json?["errors"]?.arrayValue?.first?["code"] == "unknown_variant")
        #expect(emulator.emulator.messages().isEmpty)
    }
}

/// Without a service-account key, previews still work and sending says why it cannot.
@Suite struct SendingNotConfiguredTests {
    @Test func sendingAnswers503WithTheReason() async throws {
        let herald = try TestHerald()
        let created = try await herald.request("POST", "/api/v1/campaigns", json: SendingAPITests.abCampaign)
        let id = try #require(created.json?["id"]?.stringValue)
        #expect(try await herald.request("GET", "/api/v1/campaigns/\(id)/preview").status == 200)
        let test = try await herald.request("POST", "/api/v1/campaigns/\(id)/test", json: ["tokens": ["t"]])
        #expect(test.status == 503)
        #expect(test.json?["code"] == "sending_not_configured")
    }
}

/// A test send is answered while the person waits: a retry FCM asks to come much later is not
/// waited for inside the request; the failure comes back with the retry time.
@Suite(.serialized) final class TestSendRetryAfterTests {
    @Test(.timeLimit(.minutes(5)))
    func aLongRetryAfterIsReportedNotWaitedFor() async throws {
        let emulator = try EmulatorSink(faults: FaultInjection(unavailable: 1, unavailableRetryAfter: 30))
        var environment = emulator.environment
        environment["HERALD_SCHEDULER"] = "false"
        let herald = try TestHerald(environment: environment)
        let created = try await herald.request("POST", "/api/v1/campaigns", json: SendingAPITests.abCampaign)
        let id = try #require(created.json?["id"]?.stringValue)
        let started = ContinuousClock.now
        let test = try await herald.request("POST", "/api/v1/campaigns/\(id)/test", json: ["tokens": ["token-1"]])
        // The claim itself, not a guess at how fast a busy machine answers: less than the 30 s asked
        // (and `attempts` 1 below: no second try was made).
        #expect(started.duration(to: .now) < .seconds(30), "the request waited out a 30 s Retry-After")
        #expect(test.status == 200)
        let result = try #require(test.json?["results"]?.arrayValue?.first)
        #expect(result["status"] == "failed")
        #expect(result["attempts"] == 1)
        #expect(result["error"]?["retry_after_seconds"] == 30)
    }
}
