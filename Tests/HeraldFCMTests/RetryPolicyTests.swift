import FCMMessage
@testable import HeraldFCM
import Testing


private func failure(_ code: FCMErrorCode, _ status: Int?, retryAfter: Duration? = nil) -> SendOutcome {
    .failed(FCMError(code: code, httpStatus: status, message: "test", retryAfter: retryAfter))
}

@Suite struct RetryPolicyTests {
    let policy = RetryPolicy(maxAttempts: 10, baseDelay: .seconds(1), maxDelay: .seconds(60))

    @Test func jitterStaysBetweenZeroAndTheDoublingCeiling() {
        var generator = SplitMix64(state: 7)
        for attempt in 1...9 {
            let ceiling = min(Double(1 << (attempt - 1)), 60)
            var largest = Duration.zero
            for _ in 0..<500 {
                let delay = policy.delay(forAttempt: attempt, outcome: failure(.unavailable, 503), using: &generator)!
                #expect(delay >= .zero && delay <= .seconds(ceiling))
                largest = max(largest, delay)
            }
            // Full jitter uses the whole range, not a fixed step.
            #expect(largest > .seconds(ceiling * 0.9))
        }
    }

    @Test func theCeilingDoublesUpToTheCap() {
        #expect(policy.backoffCeiling(afterAttempt: 1) == .seconds(1))
        #expect(policy.backoffCeiling(afterAttempt: 2) == .seconds(2))
        #expect(policy.backoffCeiling(afterAttempt: 4) == .seconds(8))
        #expect(policy.backoffCeiling(afterAttempt: 7) == .seconds(60))
        #expect(policy.backoffCeiling(afterAttempt: 100) == .seconds(60))
    }

    @Test func quotaExceededWaitsAtLeastAMinute() {
        var generator = SplitMix64(state: 1)
        for attempt in 1...5 {
            let delay = policy.delay(forAttempt: attempt, outcome: failure(.quotaExceeded, 429), using: &generator)!
            #expect(delay >= .seconds(60))
        }
    }

    @Test func retryAfterIsNeverUndercut() {
        var generator = SplitMix64(state: 3)
        for _ in 0..<200 {
            let delay = policy.delay(forAttempt: 1, outcome: failure(.unavailable, 503, retryAfter: .seconds(30)), using: &generator)!
            #expect(delay >= .seconds(30))
        }
        // Even beyond the cap: the server's word wins.
        let long = policy.delay(forAttempt: 1, outcome: failure(.internal, 500, retryAfter: .seconds(120)), using: &generator)
        #expect(long == .seconds(120))
    }

    @Test func permanentErrorsAreNeverRetried() {
        for code in [FCMErrorCode.invalidArgument, .unregistered, .senderIDMismatch, .thirdPartyAuthError] {
            #expect(policy.delay(forAttempt: 1, outcome: failure(code, 400)) == nil)
        }
        #expect(policy.delay(forAttempt: 1, outcome: failure(FCMErrorCode(rawValue: "HTTP_409"), 409)) == nil)
        #expect(policy.delay(forAttempt: 1, outcome: .sent(name: "projects/p/messages/1")) == nil)
    }

    @Test func retryableErrorsAreRetriedUntilTheAttemptsRunOut() {
        for code in [FCMErrorCode.unavailable, .internal, .transport] {
            #expect(policy.delay(forAttempt: 9, outcome: failure(code, code == .transport ? nil : 503)) != nil)
            #expect(policy.delay(forAttempt: 10, outcome: failure(code, 503)) == nil)
        }
        // An unknown code on a 5xx is FCM being unwell, so it is retried.
        #expect(policy.delay(forAttempt: 1, outcome: failure(FCMErrorCode(rawValue: "HTTP_502"), 502)) != nil)
    }
}

@Suite struct RetryAfterTests {
    let now = UnixTime(seconds: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT

    @Test func parsesSeconds() {
        #expect(RetryAfter.parse("120", now: now) == .seconds(120))
        #expect(RetryAfter.parse(" 0 ", now: now) == .zero)
        #expect(RetryAfter.parse("-5", now: now) == nil)
        #expect(RetryAfter.parse("soon", now: now) == nil)
    }

    @Test func parsesTheThreeHTTPDateForms() {
        #expect(RetryAfter.parseHTTPDate("Sun, 06 Nov 1994 08:49:37 GMT") == now)
        #expect(RetryAfter.parseHTTPDate("Sunday, 06-Nov-94 08:49:37 GMT") == now)
        #expect(RetryAfter.parseHTTPDate("Sun Nov  6 08:49:37 1994") == now)
        #expect(RetryAfter.parseHTTPDate("Thu, 01 Jan 1970 00:00:00 GMT") == UnixTime(seconds: 0))
        #expect(RetryAfter.parseHTTPDate("Tue, 29 Feb 2028 23:59:59 GMT") == UnixTime(seconds: 1_835_481_599))
        #expect(RetryAfter.parseHTTPDate("Sun, 06 Nov 1994 25:49:37 GMT") == nil)
        #expect(RetryAfter.parseHTTPDate("Sun, 06 Foo 1994 08:49:37 GMT") == nil)
    }

    @Test func aDateIsAWaitFromNow() {
        #expect(RetryAfter.parse("Sun, 06 Nov 1994 08:50:37 GMT", now: now) == .seconds(60))
        #expect(RetryAfter.parse("Sun, 06 Nov 1994 08:40:00 GMT", now: now) == .zero)
    }

    @Test func aResponseCarriesItsRetryAfterIntoTheError() {
        let response = HTTPClientResponse(
            status: 503, headers: [("retry-after", "7")],
            body: Array(#"{"error":{"code":503,"message":"try later","status":"UNAVAILABLE"}}"#.utf8))
        let error = FCMResponseClassifier.outcome(for: response, now: now).error
        #expect(error?.code == .unavailable)
        #expect(error?.retryAfter == .seconds(7))
        #expect(error?.isRetryable == true)
        #expect(error?.message == "try later")
    }
}

@Suite struct RetryPolicyLongestWaitTests {
    @Test func aRetryDueLaterThanTheLongestWaitIsNotMade() {
        let unavailable = SendOutcome.failed(FCMError(code: .unavailable, httpStatus: 503, message: "later", retryAfter: .seconds(30)))
        #expect(RetryPolicy(longestWait: .seconds(2)).delay(forAttempt: 1, outcome: unavailable) == nil)
        #expect(RetryPolicy().delay(forAttempt: 1, outcome: unavailable) == .seconds(30))
        let soon = SendOutcome.failed(FCMError(code: .unavailable, httpStatus: 503, message: "soon", retryAfter: .seconds(1)))
        #expect(RetryPolicy(longestWait: .seconds(2)).delay(forAttempt: 1, outcome: soon).map { $0 >= .seconds(1) } == true)
    }
}
