import FCMEmulator
import HeraldFCM
import HeraldJSON
import Testing

/// The emulator's request handling, called in-process without a socket.
@Suite struct EmulatorHandlerTests {
    let emulator: FCMEmulator
    let bearer: String

    init() throws {
        emulator = try FCMEmulator(configuration: FCMEmulatorConfiguration(
            projectID: "herald-test", trustedPublicKeyPEM: TestKeys.primary.publicKeyPEM,
            trustedClientEmail: "sender@herald-test.iam.gserviceaccount.com", messageCapacity: 5,
            unregisteredTokens: ["gone-token"]))
        let answer = try Self.tokenRequest(emulator, account: TestKeys.serviceAccount(tokenURI: "http://emu.test/token"))
        bearer = try #require(JSON.parse(answer.body)["access_token"]?.stringValue)
    }

    static func tokenRequest(_ emulator: FCMEmulator, account: ServiceAccount, issuedAt: Int? = nil) throws -> EmulatorResponse {
        let jwt = try JWTAssertion.make(for: account, issuedAt: issuedAt ?? Int(UnixTime.now().seconds))
        let form = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(jwt)"
        return try #require(emulator.handle(EmulatorRequest(method: "POST", target: "/token", headers: [("Host", "emu.test")], body: Array(form.utf8))).response)
    }

    /// What the official Admin SDKs send (google-auth): the audience Google's token endpoint, the
    /// cloud-platform scope. Google accepts it whatever the key's token_uri says; so does the emulator.
    @Test func acceptsTheAdminSDKsAudienceAndScope() throws {
        let account = try TestKeys.serviceAccount(tokenURI: "http://emu.test/token")
        let jwt = try JWTAssertion.make(for: account, audience: "https://oauth2.googleapis.com/token", issuedAt: Int(UnixTime.now().seconds),
                                        scope: "https://www.googleapis.com/auth/cloud-platform")
        let form = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(jwt)"
        let answer = try #require(emulator.handle(EmulatorRequest(method: "POST", target: "/token", headers: [("Host", "emu.test")],
                                                                  body: Array(form.utf8))).response)
        #expect(answer.status == 200)
        // A scope that grants no sending is still refused.
        let other = try JWTAssertion.make(for: account, issuedAt: Int(UnixTime.now().seconds), scope: "https://www.googleapis.com/auth/userinfo.email")
        let refused = try #require(emulator.handle(EmulatorRequest(method: "POST", target: "/token", headers: [("Host", "emu.test")],
                                                                   body: Array("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(other)".utf8))).response)
        #expect(refused.status == 400)
    }

    func send(_ message: JSON, validateOnly: Bool = false, project: String = "herald-test", bearer: String? = nil) throws -> (status: Int, body: JSON) {
        let body: JSON = ["message": message, "validate_only": .bool(validateOnly)]
        let request = EmulatorRequest(method: "POST", target: "/v1/projects/\(project)/messages:send",
                                      headers: [("Authorization", "Bearer \(bearer ?? self.bearer)")], body: body.serialized())
        let response = try #require(emulator.handle(request).response)
        return (response.status, try JSON.parse(response.body))
    }

    /// The FCM error code and message of a refused send.
    func refusal(_ message: JSON) throws -> (code: String?, message: String) {
        let (status, body) = try send(message)
        #expect(status == 400)
        let detail = body["error"]?["details"]?.arrayValue?.first { $0["@type"] == "type.googleapis.com/google.firebase.fcm.v1.FcmError" }
        #expect(body["error"]?["status"] == "INVALID_ARGUMENT")
        #expect(body["error"]?["code"] == 400)
        return (detail?["errorCode"]?.stringValue, body["error"]?["message"]?.stringValue ?? "")
    }

    @Test func refusesWhatAPNsRefusesThatASchemaAloneMisses() throws {
        func apns(_ headers: JSON, _ aps: JSON) -> JSON {
            ["topic": "news", "apns": ["headers": headers, "payload": ["aps": aps]]]
        }
        let background = try refusal(apns(["apns-priority": "10"], ["content-available": 1]))
        #expect(background.message.contains("must be sent with apns-priority 5"))
        #expect(try refusal(apns(["apns-push-type": "background", "apns-priority": "10"], ["content-available": 1])).message.contains("apns-priority 5"))
        #expect(try refusal(apns([:], ["badge": "3"])).message.contains("the badge must be a whole number"))
        #expect(try refusal(apns([:], ["mutable-content": true])).message.contains("mutable-content must be the number 1"))
        #expect(try refusal(apns(["apns-push-type": "background", "apns-priority": "5"], ["alert": "Hi", "content-available": 1])).message
            .contains("cannot carry an alert"))
        // What Herald renders for a data-only campaign with a priority passes.
        #expect(try send(apns(["apns-priority": "5", "apns-push-type": "background"], ["content-available": 1])).0 == 200)
        #expect(try send(apns(["apns-priority": "10"], ["alert": ["title": "Hi"], "badge": 2, "mutable-content": 1])).0 == 200)
        // Apple's push types, all of them and nothing else.
        #expect(try refusal(apns(["apns-push-type": "banana"], ["alert": "Hi"])).message.contains("not an APNs push type"))
        for type in ["alert", "pushtotalk", "widgets"] { #expect(try send(apns(["apns-push-type": .string(type)], ["alert": "Hi"])).0 == 200) }
        // FCM's documented Live Activity update ("Send Live Activity updates") passes as written.
        let liveActivity: JSON = ["token": "fcm-token-1", "apns": ["live_activity_token": "LA_PUSH_TOKEN", "headers": ["apns-priority": "10"],
                                                                   "payload": ["aps": ["timestamp": 1685952000, "event": "update", "content-state": ["demo": 1]]]]]
        #expect(try send(liveActivity).0 == 200)
        // Without what an activity reads, or pushed as another type, it is refused.
        let withoutTimestamp: JSON = ["token": "fcm-token-1", "apns": ["live_activity_token": "LA_PUSH_TOKEN", "headers": ["apns-priority": "10"],
                                                                       "payload": ["aps": ["event": "update", "content-state": ["demo": 1]]]]]
        #expect(try refusal(withoutTimestamp).message.contains("timestamp"))
        let asAlert: JSON = ["token": "fcm-token-1", "apns": ["live_activity_token": "LA_PUSH_TOKEN", "headers": ["apns-push-type": "alert"],
                                                              "payload": ["aps": ["timestamp": 1685952000, "event": "update", "content-state": [:]]]]]
        #expect(try refusal(asAlert).message.contains("liveactivity"))
    }

    @Test func acceptsAValidTopicMessageAndListsIt() throws {
        let message: JSON = [
            "topic": "news",
            "notification": ["title": "Hello", "body": "World", "image": "https://example.com/a.png"],
            "android": ["ttl": "86400s", "priority": "HIGH", "notification": ["color": "#ff8800", "clickAction": "OPEN"]],
            "apns": ["headers": ["apns-priority": "10", "apns-expiration": "1700000000"],
                     "payload": ["aps": ["mutable-content": 1, "category": "OPEN"], "custom": ["any": true]],
                     "fcm_options": ["image": "https://example.com/a.png"]],
            "webpush": ["headers": ["TTL": "86400", "Urgency": "high"], "notification": ["requireInteraction": true],
                        "fcm_options": ["link": "https://example.com"]],
            "data": ["campaign": "42"],
            "fcm_options": ["analytics_label": "campaign-42_a"],
        ]
        let (status, body) = try send(message)
        #expect(status == 200)
        let name = try #require(body["name"]?.stringValue)
        #expect(name.hasPrefix("projects/herald-test/messages/"))
        let listed = emulator.messages()
        #expect(listed.map(\.name) == [name])
        #expect(listed.first?.message == message)
    }

    @Test func namesAnUnknownFieldWhereFCMWould() throws {
        let refused = try refusal(["topic": "news", "notification": ["title": "Hi", "subtitle": "x"]])
        #expect(refused.code == "INVALID_ARGUMENT")
        #expect(refused.message == "Invalid JSON payload received. Unknown name \"subtitle\" at 'message.notification': Cannot find field.")
        let deep = try refusal(["token": "t", "android": ["notification": ["colour": "#ffffff"]]])
        #expect(deep.message.contains("Unknown name \"colour\" at 'message.android.notification'"))
        #expect(emulator.messages().isEmpty)
    }

    @Test func refusesBadFormats() throws {
        #expect(try refusal(["topic": "news", "android": ["ttl": "86400"]]).message.contains("message.android.ttl"))
        #expect(try refusal(["topic": "news", "android": ["ttl": "2419201s"]]).message.contains("at most"))
        #expect(try refusal(["topic": "news", "android": ["notification": ["color": "red"]]]).message.contains("message.android.notification.color"))
        #expect(try refusal(["topic": "news", "android": ["priority": "URGENT"]]).message.contains("message.android.priority"))
        #expect(try refusal(["topic": "news", "apns": ["headers": ["apns-priority": 10]]]).message.contains("apns-priority"))
        #expect(try refusal(["topic": "news", "data": ["count": 3]]).message.contains("message.data[\"count\"]"))
        #expect(try refusal(["topic": "news", "data": ["google.sent_time": "1"]]).message.contains("reserved"))
        #expect(try refusal(["topic": "news", "data": ["from": "me"]]).message.contains("reserved"))
        #expect(try refusal(["topic": "news", "webpush": ["fcm_options": ["link": "http://example.com"]]]).message.contains("https"))
        #expect(try refusal(["topic": "news", "fcm_options": ["analytics_label": "has space"]]).message.contains("analytics_label"))
        #expect(try refusal(["topic": "news", "android": ["ttl": "3.1234567890s"]]).message.contains("ttl"))
        #expect(try send(["topic": "news", "android": ["ttl": "3.5s"]]).status == 200)
        for malformed in [".5s", "5.s", "1.2.3s", "-1s", "1e3s", "s", "٣s"] {
            #expect(try refusal(["topic": "news", "android": ["ttl": .string(malformed)]]).message.contains("Illegal duration format"), "\(malformed)")
        }
        #expect(try send(["topic": "news", "android": ["ttl": "0.000000001s"]]).status == 200)
    }

    @Test func requiresExactlyOneValidTarget() throws {
        #expect(try refusal(["topic": "news", "token": "abc"]).message.contains("oneof field 'target' is already set"))
        #expect(try refusal(["notification": ["title": "Hi"]]).message.contains("Recipient of the message is not set"))
        #expect(try refusal(["topic": "news!"]).message.contains("Invalid topic name"))
        #expect(try send(["topic": "/topics/news"]).status == 200)
        // The v1 API's installation-ID target and Android's newer delivery flags.
        #expect(try send(["fid": "cAbC123", "android": ["bandwidth_constrained_ok": true, "restricted_satellite_ok": true]]).status == 200)
        #expect(try refusal(["fid": "cAbC123", "token": "abc"]).message.contains("oneof field 'target' is already set"))
    }

    @Test func checksConditions() throws {
        #expect(try send(["condition": "'a' in topics && ('b' in topics || 'c' in topics) && !('d' in topics)"]).status == 200)
        let six = (1...6).map { "'t\($0)' in topics" }.joined(separator: " || ")
        #expect(try refusal(["condition": .string(six)]).message.contains("6 topics"))
        #expect(try refusal(["condition": "'a' in topics &&"]).message.contains("condition"))
        #expect(try refusal(["condition": "'a' in topics && ('b' in topics"]).message.contains("missing )"))
        #expect(try refusal(["condition": "'a b' in topics"]).message.contains("invalid topic name"))
    }

    @Test func enforcesThePayloadLimitWithoutTheTarget() throws {
        // {"data":{"k":"…"}} is 17 bytes around the value.
        func message(_ target: (String, JSON), payloadBytes: Int) -> JSON {
            var object = JSONObject()
            object[target.0] = target.1
            object["data"] = ["k": .string(String(repeating: "x", count: payloadBytes - 17))]
            return .object(object)
        }
        #expect(try send(message(("topic", "news"), payloadBytes: 2048)).status == 200)
        #expect(try refusal(message(("topic", "news"), payloadBytes: 2049)).message.contains("2049 bytes"))
        #expect(try refusal(message(("condition", "'a' in topics"), payloadBytes: 2049)).message.contains("2048"))
        #expect(try send(message(("token", "abc"), payloadBytes: 4096)).status == 200)
        #expect(try refusal(message(("token", "abc"), payloadBytes: 4097)).message.contains("4096"))
        // UTF-8 bytes, not characters: 1020 × "é" is 2040 bytes, over the limit with the rest.
        #expect(try refusal(["topic": "news", "data": ["k": .string(String(repeating: "é", count: 1020))]]).message.contains("bytes"))
    }

    @Test func answersUnregisteredForAGoneToken() throws {
        let (status, body) = try send(["token": "gone-token"])
        #expect(status == 404)
        #expect(body["error"]?["details"]?.arrayValue?.first?["errorCode"] == "UNREGISTERED")
    }

    @Test func validateOnlyIsCheckedButNotDelivered() throws {
        let (status, body) = try send(["topic": "news"], validateOnly: true)
        #expect(status == 200)
        #expect(body["name"] == "projects/herald-test/messages/fake_message_id")
        #expect(emulator.messages().isEmpty)
        #expect(try send(["topic": "news", "bogus": 1], validateOnly: true).status == 400)
    }

    @Test func refusesAMissingOrUnknownBearerToken() throws {
        let (status, body) = try send(["topic": "news"], bearer: "emu.forged")
        #expect(status == 401)
        #expect(body["error"]?["status"] == "UNAUTHENTICATED")
        emulator.revokeAccessTokens()
        #expect(try send(["topic": "news"]).status == 401)
    }

    @Test func refusesAnotherProject() throws {
        #expect(try send(["topic": "news"], project: "someone-else").status == 403)
    }

    @Test func refusesAnAssertionSignedWithAnotherKey() throws {
        let response = try Self.tokenRequest(emulator, account: TestKeys.serviceAccount(TestKeys.other, tokenURI: "http://emu.test/token"))
        #expect(response.status == 400)
        let body = try JSON.parse(response.body)
        #expect(body["error"] == "invalid_grant")
        #expect(body["error_description"] == "Invalid JWT Signature.")
    }

    @Test func refusesAnAssertionForAnotherAudienceOrOutOfTime() throws {
        let elsewhere = try Self.tokenRequest(emulator, account: TestKeys.serviceAccount(tokenURI: "http://elsewhere.test/token"))
        #expect(elsewhere.status == 400)
        let expired = try Self.tokenRequest(emulator, account: TestKeys.serviceAccount(tokenURI: "http://emu.test/token"),
                                            issuedAt: Int(UnixTime.now().seconds) - 7200)
        #expect(expired.status == 400)
        #expect(String(decoding: expired.body, as: UTF8.self).contains("expired"))
    }

    @Test func listsSinceACursorKeepsACapAndResets() throws {
        for index in 1...7 { _ = try send(["topic": "news", "data": ["n": .string("\(index)")]]) }
        let all = emulator.messages()
        #expect(all.count == 5)  // the cap
        #expect(all.map { $0.message["data"]?["n"] } == ["3", "4", "5", "6", "7"])
        let response = try #require(emulator.handle(EmulatorRequest(method: "GET", target: "/emulator/messages?since=\(all[2].sequence)")).response)
        let listed = try JSON.parse(response.body)
        #expect(listed["messages"]?.arrayValue?.map { $0["message"]?["data"]?["n"] } == ["6", "7"])
        #expect(listed["last_sequence"]?.intValue == all[4].sequence)
        #expect(emulator.handle(EmulatorRequest(method: "DELETE", target: "/emulator/messages")).response?.status == 204)
        #expect(emulator.messages().isEmpty)
    }
}

extension EmulatorHandlerTests {
    func instanceID(_ body: JSON, headers extra: [(name: String, value: String)]) throws -> EmulatorResponse {
        try #require(emulator.handle(EmulatorRequest(method: "POST", target: "/iid/v1:batchAdd",
                                                     headers: [("Authorization", "Bearer \(bearer)")] + extra, body: body.serialized())).response)
    }

    /// The Instance ID API as strict as Google's: an OAuth token only with `access_token_auth: true`,
    /// and the topic named `/topics/NAME`.
    @Test func instanceIDWantsItsHeaderAndATopicPath() throws {
        let body: JSON = ["to": "/topics/news", "registration_tokens": ["token-1"]]
        #expect(try instanceID(body, headers: []).status == 401)
        #expect(try instanceID(["to": "news", "registration_tokens": ["token-1"]], headers: [("access_token_auth", "true")]).status == 400)
        #expect(try instanceID(body, headers: [("access_token_auth", "true")]).status == 200)
        #expect(emulator.subscribers(of: "news") == ["token-1"])
    }

    /// Every accepted message is counted, by analytics label, past the log's capacity (five here).
    @Test func everyMessageIsCountedByLabelBeyondTheLogsCapacity() throws {
        for index in 0..<7 {
            let label = index < 4 ? "herald-a" : "herald-b"
            #expect(try send(["token": .string("token-\(index)"), "fcm_options": ["analytics_label": .string(label)]]).status == 200)
        }
        #expect(try send(["token": "token-dry"], validateOnly: true).status == 200)  // a dry run is not counted
        let counts = try JSON.parse(try #require(emulator.handle(EmulatorRequest(method: "GET", target: "/emulator/counts")).response).body)
        #expect(counts["accepted"] == 7)
        #expect(counts["by_label"]?["herald-a"] == 4 && counts["by_label"]?["herald-b"] == 3)
        #expect(emulator.messages().count == 5)
    }
}
