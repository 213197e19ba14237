import FCMEmulator
import Foundation
import HeraldFCM
import HeraldJSON
import HeraldTestSupport
import Testing

/// The v1 subscription client against the emulator over real sockets: the requests exactly as the
/// discovery document describes them, the answers read as FCM documents them, retries, and the
/// Instance ID API only when it is chosen.
@Suite struct TopicSubscriptionsV1Tests {
    static func token(_ index: Int) -> String { "fcm-token:APA91b-\(index)-" + String(repeating: "x", count: 40) }
    static func fid(_ index: Int) -> String { "c" + String(format: "%021d", index) }
    /// Retries soon, so that a test of them takes a second, not a minute.
    static let quickRetries = RetryPolicy(maxAttempts: 8, baseDelay: .milliseconds(50), maxDelay: .seconds(1))

    /// Writes each subscription request the emulator received to `$HERALD_FCM_BODIES_DIR`, where
    /// `deploy/tests/check-fcm-discovery` checks it against the discovery document's method.
    static func export(_ requests: [SubscriptionRequestRecord]) {
        guard let folder = ProcessInfo.processInfo.environment["HERALD_FCM_BODIES_DIR"], !folder.isEmpty else { return }
        for request in requests {
            let record: JSON = ["method": .string(request.method), "target": .string(request.target),
                                "body": request.body.isEmpty ? .null : ((try? JSON.parse(request.body)) ?? .string(String(decoding: request.body, as: UTF8.self)))]
            _ = FileManager.default.createFile(atPath: "\(folder)/\(UUID().uuidString).subscription-request.json", contents: Data(record.serialized()))
        }
    }

    @Test func subscribeUnsubscribeAndListAreTheDocumentsRequestsAndNoneGoesToTheInstanceIDAPI() throws {
        let sink = try EmulatorSink()
        let sender = try sink.sender()
        let registrations = [Self.token(1), Self.fid(2)]
        let added = try sender.subscribe(registrations, to: "/topics/news")
        #expect(added == TopicManagementResult(succeeded: 2, failures: [], calls: 2, throttled: 0))
        #expect(try sender.topics(of: Self.fid(2)).map(\.topic) == ["news"])
        #expect(try sender.topics(of: Self.fid(2)).first?.createTime?.hasSuffix("Z") == true)
        let removed = try sender.unsubscribe([Self.fid(2)], from: "news")
        #expect(removed.succeeded == 1 && removed.failures.isEmpty)

        let requests = sink.emulator.subscriptionRequests()
        let encodedToken = Self.token(1).replacingOccurrences(of: ":", with: "%3A")
        let seen = requests.map { "\($0.method) \($0.target) \(String(decoding: $0.body, as: UTF8.self))" }.sorted()
        #expect(seen == [
            "DELETE /v1/projects/herald-test/registrations/\(Self.fid(2))/topicSubscriptions/news?allowMissing=true ",
            "GET /v1/projects/herald-test/registrations/\(Self.fid(2))/topicSubscriptions?pageSize=2000 ",
            "GET /v1/projects/herald-test/registrations/\(Self.fid(2))/topicSubscriptions?pageSize=2000 ",
            "POST /v1/projects/herald-test/registrations/\(Self.fid(2))/topicSubscriptions?topicName=news {}",
            "POST /v1/projects/herald-test/registrations/\(encodedToken)/topicSubscriptions?topicName=news {}",
        ].sorted())
        #expect(requests.allSatisfy { $0.status == 200 })
        #expect(sink.emulator.instanceIDCallCount == 0)
        #expect(sink.emulator.topics(of: Self.token(1)) == ["news"] && sink.emulator.topics(of: Self.fid(2)).isEmpty)
        // The patch Herald does not make today, exported too so that the check covers every method.
        let patch = TopicSubscriptionRequest.patch(project: "herald-test", registration: Self.fid(3), topic: "news")
        let get = TopicSubscriptionRequest.get(project: "herald-test", registration: Self.fid(3), topic: "news")
        Self.export(requests + [patch, get].map { SubscriptionRequestRecord(method: $0.method, target: $0.target, body: $0.body, status: 0) })
    }

    /// ALREADY_EXISTS on create and a missing subscription on delete are the state wanted; an
    /// unregistered device is named UNREGISTERED, another sender's SENDER_ID_MISMATCH.
    @Test func theAnswersAreReadAsFCMDocumentsThem() throws {
        let sink = try EmulatorSink(unregistered: [Self.token(9)], otherSenders: [Self.token(8)])
        let sender = try sink.sender()
        #expect(try sender.subscribe([Self.token(1)], to: "news").succeeded == 1)
        let again = try sender.subscribe([Self.token(1), Self.token(9), Self.token(8)], to: "news")
        #expect(again.succeeded == 1)
        #expect(again.failures.map(\.token) == [Self.token(9), Self.token(8)] && again.failures.map(\.reason) == ["UNREGISTERED", "SENDER_ID_MISMATCH"])
        #expect(sink.emulator.subscriptionRequests().map(\.status).suffix(3).sorted() == [403, 404, 409])
        let removed = try sender.unsubscribe([Self.token(2)], from: "news")
        #expect(removed.succeeded == 1 && removed.failures.isEmpty)
        #expect(throws: InvalidTopicName.self) { try sender.subscribe([Self.token(1)], to: "no spaces") }
    }

    /// Over the project's rate FCM answers 429: each such request is tried again after its
    /// Retry-After with backoff until it goes through; a refused access token is refreshed.
    @Test func throttledRequestsAreRetriedAndARefusedTokenRefreshed() throws {
        let sink = try EmulatorSink { $0.subscriptionsPerSecond = 40 }
        let sender = try sink.sender(topicAPI: .v1, retryPolicy: Self.quickRetries)
        let registrations = (0..<100).map(Self.token)
        let result = try sender.subscribe(registrations, to: "news")
        #expect(result.succeeded == 100 && result.failures.isEmpty)
        #expect(result.throttled > 0 && result.throttled == sink.emulator.subscriptionRequestCounts.throttled)
        #expect(result.calls == 100 + result.throttled)
        #expect(sink.emulator.subscribers(of: "news") == Set(registrations))

        sink.emulator.revokeAccessTokens()
        let issued = sink.emulator.accessTokensIssued
        #expect(try sender.unsubscribe([Self.token(1)], from: "news").succeeded == 1)
        #expect(sink.emulator.accessTokensIssued == issued + 1)
    }

    /// A device's topics over several pages: the client follows nextPageToken to the end.
    @Test func listingFollowsPageTokens() throws {
        let sink = try EmulatorSink { $0.subscriptionPageLimit = 7 }
        let sender = try sink.sender()
        for index in 0..<20 { _ = try sender.subscribe([Self.fid(1)], to: "topic-\(index)") }
        #expect(try sender.topics(of: Self.fid(1)).map(\.topic).sorted() == (0..<20).map { "topic-\($0)" }.sorted())
        #expect(sink.emulator.subscriptionRequests().filter { $0.method == "GET" }.count == 3)
        #expect(try sender.topics(of: Self.fid(2)).isEmpty)
    }

    /// The Instance ID fallback, chosen: batch calls of tokens, and nothing to v1's topicSubscriptions.
    @Test func theInstanceIDFallbackStillWorks() throws {
        let sink = try EmulatorSink()
        let sender = try sink.sender(topicAPI: .instanceID)
        let result = try sender.subscribe((0..<1500).map(Self.token), to: "news")
        #expect(result == TopicManagementResult(succeeded: 1500, failures: [], calls: 2, throttled: 0))
        #expect(sink.emulator.instanceIDCallCount == 2 && sink.emulator.subscriptionRequests().isEmpty)
        #expect(sink.emulator.subscribers(of: "news").count == 1500)
    }
}
