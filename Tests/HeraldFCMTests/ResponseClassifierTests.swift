import FCMMessage
@testable import HeraldFCM
import HeraldTestSupport
import FCMEmulator
import Foundation
import Testing

@Suite struct ResponseClassifierTests {
    let now = UnixTime(seconds: 1_800_000_000)

    private func classify(_ status: Int, _ body: String, headers: [(name: String, value: String)] = []) -> SendOutcome {
        FCMResponseClassifier.outcome(for: HTTPClientResponse(status: status, headers: headers, body: Array(body.utf8)), now: now)
    }

    @Test func theFcmErrorDetailDecidesTheCode() {
        let error = classify(404, #"{"error":{"code":404,"message":"Requested entity was not found.","status":"NOT_FOUND","details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"UNREGISTERED"}]}}"#).error
        #expect(error?.code == .unregistered)
        #expect(error?.message == "Requested entity was not found.")
        #expect(error?.isRetryable == false)
    }

    @Test func aThirdPartyAuthErrorIsNotOurTokenBeingRefused() {
        let outcome = classify(401, #"{"error":{"code":401,"message":"APNs rejected","status":"UNAUTHENTICATED","details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"THIRD_PARTY_AUTH_ERROR"}]}}"#)
        #expect(outcome.error?.code == .thirdPartyAuthError)
        #expect(!FCMResponseClassifier.isOwnTokenRefused(outcome))
        let ours = classify(401, #"{"error":{"code":401,"message":"Request had invalid authentication credentials.","status":"UNAUTHENTICATED"}}"#)
        #expect(FCMResponseClassifier.isOwnTokenRefused(ours))
    }

    /// A 404 from a proxy or a wrong base URL is not FCM's UNREGISTERED: only FCM's own error
    /// body names a device's problem. Any 4xx without it (401 and 429 aside) says the request never
    /// reached FCM as configured, and names where it went.
    @Test func aClientErrorWithoutFCMsBodyIsAnUnexpectedAnswerNamingTheURL() {
        let url = "https://proxy.example/v1/projects/p/messages:send"
        for (status, body) in [(404, "<html><h1>Not Found</h1></html>"), (404, ""), (400, "bad request"), (403, #"{"error": "forbidden"}"#)] {
            let outcome = FCMResponseClassifier.outcome(for: HTTPClientResponse(status: status, body: Array(body.utf8)), url: url, now: now)
            #expect(outcome.error?.code == .unexpectedAnswer, "\(status) \(body)")
            #expect(outcome.error?.isRetryable == false)
            #expect(outcome.error?.message.contains(url) == true)
            #expect(FCMErrorCode.projectWide.contains(outcome.error!.code))
        }
        // FCM's own 404 is still UNREGISTERED, and a bodiless 401 or 429 keeps its meaning.
        #expect(classify(404, #"{"error":{"code":404,"message":"Requested entity was not found.","status":"NOT_FOUND","details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"UNREGISTERED"}]}}"#).error?.code == .unregistered)
        #expect(classify(401, "").error?.code == .unauthenticated)
        #expect(classify(429, "<html>slow down</html>").error?.code == .quotaExceeded)
    }

    @Test func aBodyThatIsNotFCMsStillGetsACodeFromItsStatus() {
        #expect(classify(503, "").error?.code == .unavailable)
        #expect(classify(502, "<html>Bad Gateway</html>").error?.isRetryable == true)
        #expect(classify(502, "<html>Bad Gateway</html>").error?.message == "<html>Bad Gateway</html>")
        #expect(classify(429, "", headers: [("Retry-After", "Fri, 15 Jan 2027 08:00:30 GMT")]).error?.retryAfter == .seconds(30))
        #expect(classify(409, "").error?.isRetryable == false)
        #expect(classify(200, #"{"name":"projects/p/messages/1"}"#) == .sent(name: "projects/p/messages/1"))
    }

    @Test func aThirdPartyAuthErrorIsSentOnceWithoutARefresh() throws {
        let server = try StubServer { _ in
            .respond(EmulatorResponse(status: 401, body: Array(#"{"error":{"code":401,"message":"APNs rejected","status":"UNAUTHENTICATED","details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"THIRD_PARTY_AUTH_ERROR"}]}}"#.utf8)), delay: nil)
        }
        defer { server.stop() }
        let counting = CountingToken()
        let sender = FCMSender(configuration: FCMConfiguration(projectID: "p", baseURL: "http://127.0.0.1:\(server.port)"), credentials: counting)
        let result = sender.sendWithRetries(["token": "t"], policy: RetryPolicy(baseDelay: .milliseconds(1)))
        #expect(result.outcome.error?.code == .thirdPartyAuthError)
        #expect(result.attempts.count == 1)
        #expect(counting.invalidations == 0)
    }
}

/// A token provider that counts how often the sender reports a refused token.
final class CountingToken: AccessTokenProvider, @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var invalidations: Int { lock.withLock { count } }
    func accessToken() throws(FCMError) -> String { "t" }
    func invalidate(_ token: String) { lock.withLock { count += 1 } }
}
