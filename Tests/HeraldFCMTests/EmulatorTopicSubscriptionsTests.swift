import FCMEmulator
import HeraldFCM
import HeraldJSON
import Testing

/// The emulator's `projects.registrations.topicSubscriptions`, called in-process: as strict as the
/// discovery document (fields, query parameters, the topic pattern), FCM's limits (2,000 topics an
/// app instance, adds and removes a second), and topic sends reaching exactly the subscribed.
@Suite struct EmulatorTopicSubscriptionsTests {
    let emulator: FCMEmulator
    let bearer: String
    static let registration = "fcm-token:APA91b-registration"
    static let fid = "cAAAAAAAAAAAAAAAAAAAAA"

    init() throws {
        var configuration = FCMEmulatorConfiguration(
            projectID: "herald-test", trustedPublicKeyPEM: TestKeys.primary.publicKeyPEM,
            trustedClientEmail: "sender@herald-test.iam.gserviceaccount.com", unregisteredTokens: ["gone-token"])
        configuration.maximumTopicsPerRegistration = 3
        configuration.subscriptionPageLimit = 2
        configuration.subscriptionsPerSecond = 1_000_000
        emulator = try FCMEmulator(configuration: configuration)
        let answer = try EmulatorHandlerTests.tokenRequest(emulator, account: TestKeys.serviceAccount(tokenURI: "http://emu.test/token"))
        bearer = try #require(JSON.parse(answer.body)["access_token"]?.stringValue)
    }

    func call(_ request: TopicSubscriptionRequest, body: [UInt8]? = nil) throws -> (status: Int, json: JSON) {
        try call(request.method, request.target, body: body ?? request.body)
    }

    func call(_ method: String, _ target: String, body: [UInt8] = []) throws -> (status: Int, json: JSON) {
        let response = try #require(emulator.handle(EmulatorRequest(method: method, target: target,
                                                                    headers: [("Authorization", "Bearer \(bearer)")], body: body)).response)
        return (response.status, (try? JSON.parse(response.body)) ?? .null)
    }

    func create(_ topic: String, for registration: String = registration) -> TopicSubscriptionRequest {
        .create(project: "herald-test", registration: registration, topic: topic)
    }

    @Test func createGetListPatchAndDeleteAsTheDiscoveryDocumentDescribes() throws {
        let created = try call(create("news"))
        #expect(created.status == 200)
        #expect(created.json["name"] == .string("projects/herald-test/registrations/\(Self.registration)/topicSubscriptions/news"))
        #expect(created.json["topicName"] == "news" && created.json["createTime"]?.stringValue?.hasSuffix("Z") == true)
        // Creating it again: ALREADY_EXISTS.
        let again = try call(create("news"))
        #expect(again.status == 409 && again.json["error"]?["status"] == "ALREADY_EXISTS")
        #expect(try call(.get(project: "herald-test", registration: Self.registration, topic: "news")).json == created.json)
        #expect(try call(.get(project: "herald-test", registration: Self.registration, topic: "sport")).status == 404)

        // Patch without allowMissing finds nothing to update; with it, creates.
        let patch = TopicSubscriptionRequest.patch(project: "herald-test", registration: Self.registration, topic: "sport")
        #expect(try call("PATCH", patch.path, body: patch.body).status == 404)
        #expect(try call(patch).status == 200)
        #expect(try call(create("weather")).status == 200)

        // Listed two a page (this emulator's page limit), by name, following nextPageToken.
        let first = try call(.list(project: "herald-test", registration: Self.registration))
        #expect(first.json["topicSubscriptions"]?.arrayValue?.compactMap { $0["topicName"]?.stringValue } == ["news", "sport"])
        let token = try #require(first.json["nextPageToken"]?.stringValue)
        let second = try call(.list(project: "herald-test", registration: Self.registration, pageToken: token))
        #expect(second.json["topicSubscriptions"]?.arrayValue?.compactMap { $0["topicName"]?.stringValue } == ["weather"])
        #expect(second.json["nextPageToken"] == nil)

        // A fourth topic is over this emulator's limit of three (FCM's is 2,000).
        let full = try call(create("music"))
        #expect(full.status == 400 && full.json["error"]?["status"] == "FAILED_PRECONDITION")

        // Delete: NOT_FOUND for a missing one, unless allowMissing.
        #expect(try call(.delete(project: "herald-test", registration: Self.registration, topic: "news")).status == 200)
        #expect(try call("DELETE", TopicSubscriptionRequest.delete(project: "herald-test", registration: Self.registration, topic: "news").path).status == 404)
        #expect(try call(.delete(project: "herald-test", registration: Self.registration, topic: "news")).status == 200)
        #expect(emulator.topics(of: Self.registration) == ["sport", "weather"])
    }

    @Test func unknownFieldsParametersAndBadTopicNamesAreRefused() throws {
        let request = create("news")
        #expect(try call(request, body: Array(#"{"topic": "news"}"#.utf8)).status == 400)
        #expect(try call("POST", request.target + "&validateOnly=true", body: request.body).json["error"]?["message"]?.stringValue?.contains("validateOnly") == true)
        #expect(try call("POST", request.path, body: request.body).status == 400)  // topicName is required
        #expect(try call(create("bad topic!")).status == 400)
        #expect(try call(create(String(repeating: "a", count: 901))).status == 400)
        #expect(try call(create(String(repeating: "a", count: 900))).status == 200)
        #expect(try call("GET", TopicSubscriptionRequest.list(project: "herald-test", registration: Self.registration).target, body: Array("{}".utf8)).status == 400)
        #expect(try call("PUT", TopicSubscriptionRequest.get(project: "herald-test", registration: Self.registration, topic: "news").path).status == 405)
        // Another project's, an unknown registration, one that is no registration at all.
        #expect(try call(.create(project: "other", registration: Self.registration, topic: "news")).status == 403)
        let gone = try call(create("news", for: "gone-token"))
        #expect(gone.status == 404 && gone.json["error"]?["details"]?.arrayValue?.first?["errorCode"] == "UNREGISTERED")
        #expect(try call(create("news", for: "not a token")).status == 400)
        #expect(try call(create("news", for: Self.fid)).status == 200)
    }

    /// A topic message reaches exactly the registrations subscribed through either API, and a
    /// condition message those its expression holds for.
    @Test func topicSendsReachExactlyTheSubscribedDevices() throws {
        #expect(try call(create("news")).status == 200)
        #expect(try call(create("news", for: Self.fid)).status == 200)
        #expect(try call(create("sport", for: Self.fid)).status == 200)
        let iid = EmulatorRequest(method: "POST", target: "/iid/v1:batchAdd",
                                  headers: [("Authorization", "Bearer \(bearer)"), ("access_token_auth", "true")],
                                  body: JSON.object(["to": "/topics/news", "registration_tokens": ["token-by-iid"]]).serialized())
        #expect(emulator.handle(iid).response?.status == 200)
        func send(_ message: JSON) throws -> [String]? {
            #expect(try call("POST", "/v1/projects/herald-test/messages:send", body: JSON.object(["message": message]).serialized()).status == 200)
            return emulator.messages().last?.reached
        }
        #expect(try send(["topic": "news"]) == ["cAAAAAAAAAAAAAAAAAAAAA", "fcm-token:APA91b-registration", "token-by-iid"].sorted())
        #expect(try send(["condition": "'news' in topics && !('sport' in topics)"]) == ["fcm-token:APA91b-registration", "token-by-iid"])
        #expect(try send(["topic": "nobody"]) == [])
        #expect(try send(["token": "token-by-iid"]) == nil)
    }

    /// Adds and removes beyond the rate in one second are answered 429 RESOURCE_EXHAUSTED with
    /// Retry-After; reads are not counted.
    @Test func addsAndRemovesOverTheRateAreAnswered429() throws {
        var configuration = emulator.configuration
        configuration.subscriptionsPerSecond = 5
        configuration.maximumTopicsPerRegistration = 2000
        let limited = try FCMEmulator(configuration: configuration)
        let answer = try EmulatorHandlerTests.tokenRequest(limited, account: TestKeys.serviceAccount(tokenURI: "http://emu.test/token"))
        let token = try #require(JSON.parse(answer.body)["access_token"]?.stringValue)
        // Twenty adds in well under a second (or across one boundary: then at most ten pass).
        let statuses = (0..<20).map { index in
            let request = TopicSubscriptionRequest.create(project: "herald-test", registration: Self.registration, topic: "t\(index)")
            return limited.handle(EmulatorRequest(method: "POST", target: request.target, headers: [("Authorization", "Bearer \(token)")],
                                                  body: request.body)).response
        }
        #expect((5...10).contains(statuses.filter { $0?.status == 200 }.count))
        let refused = try #require(statuses.first { $0?.status == 429 } ?? nil)
        #expect(refused.headers.contains { $0.name == "Retry-After" && $0.value == "1" })
        #expect((try JSON.parse(refused.body))["error"]?["status"] == "RESOURCE_EXHAUSTED")
        #expect(limited.subscriptionRequestCounts.throttled == statuses.filter { $0?.status == 429 }.count)
    }
}
