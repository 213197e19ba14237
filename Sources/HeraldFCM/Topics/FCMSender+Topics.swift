import FCMMessage
import HeraldJSON
import HeraldSync

/// What one subscribe or unsubscribe did: how many registrations it changed, the ones FCM
/// refused (with its reason: UNREGISTERED or NOT_FOUND for a dead one, INVALID_ARGUMENT…), how
/// many HTTP calls it took, and how many of them FCM answered 429.
public struct TopicManagementResult: Sendable, Equatable {
    public var succeeded = 0
    public var failures: [(token: String, reason: String)] = []
    public var calls = 0
    public var throttled = 0

    public init(succeeded: Int = 0, failures: [(token: String, reason: String)] = [], calls: Int = 0, throttled: Int = 0) {
        self.succeeded = succeeded
        self.failures = failures
        self.calls = calls
        self.throttled = throttled
    }

    public static func == (lhs: TopicManagementResult, rhs: TopicManagementResult) -> Bool {
        lhs.succeeded == rhs.succeeded && lhs.calls == rhs.calls && lhs.throttled == rhs.throttled
            && lhs.failures.map(\.token) == rhs.failures.map(\.token)
    }
}

/// A topic name FCM would refuse: nothing was sent.
public struct InvalidTopicName: Error, Sendable, Equatable, CustomStringConvertible {
    public let topic: String
    public var description: String { "\"\(topic)\" is not a topic name: 1 to 900 of letters, digits and - _ . ~ %" }
}

extension FCMSender {
    /// Tokens one Instance ID call takes (firebase-admin's `subscribe_to_topic` limit too).
    public static let topicManagementBatch = 1000

    /// Subscribes `registrations` to `topic` server-side through the configured topic API (v1's
    /// `topicSubscriptions`, tokens and FIDs, at the rate `permits` allows; or the Instance ID API's
    /// `iid/v1:batchAdd`, tokens only, 1,000 a call), so apps need no client convention to join a topic.
    /// `policy` (the configuration's unless given) says how long a failing device is tried again.
    public func subscribe(_ registrations: [String], to topic: String, permits: any SubscriptionPermits = UnlimitedSubscriptionPermits(),
                          policy: RetryPolicy? = nil) throws -> TopicManagementResult {
        try changeSubscriptions(registrations, topic: topic, subscribing: true, permits: permits, policy: policy)
    }

    /// Unsubscribes `registrations` from `topic` (v1's `delete` with `allowMissing`, or `iid/v1:batchRemove`).
    public func unsubscribe(_ registrations: [String], from topic: String, permits: any SubscriptionPermits = UnlimitedSubscriptionPermits(),
                            policy: RetryPolicy? = nil) throws -> TopicManagementResult {
        try changeSubscriptions(registrations, topic: topic, subscribing: false, permits: permits, policy: policy)
    }

    private func changeSubscriptions(_ registrations: [String], topic: String, subscribing: Bool,
                                     permits: any SubscriptionPermits, policy: RetryPolicy?) throws -> TopicManagementResult {
        let name = TopicName.stripPrefix(topic)
        // Checked here once: FCM would refuse every request with INVALID_ARGUMENT, which must not
        // read as each registration being invalid.
        guard TopicName.isValid(name) else { throw InvalidTopicName(topic: topic) }
        switch configuration.topicAPI {
        case .v1: return try changeSubscriptionsV1(registrations, topic: name, subscribing: subscribing, permits: permits, policy: policy)
        case .instanceID: return try manageTopic(registrations, topic: name, operation: subscribing ? "batchAdd" : "batchRemove", policy: policy)
        }
    }

    /// Per-token errors of the Instance ID API that are worth another try (firebase-admin's
    /// `_handle_iid_error` and the API's answers: a server's passing trouble, not the token's).
    static let retryableTokenErrors: Set<String> = ["INTERNAL", "UNAVAILABLE", "TOO_MANY_REQUESTS"]

    /// The calls for `tokens`, 1,000 tokens each, tried as FCM's guidance asks: a call answered
    /// 429 or 5xx, or not answered, is tried again after the retry policy's backoff (never
    /// sooner than its Retry-After); a 401 gets a fresh access token and another try; the tokens
    /// a call answered INTERNAL for are tried again in a call of their own. What still fails is
    /// reported per token.
    func manageTopic(_ tokens: [String], topic: String, operation: String, policy: RetryPolicy? = nil) throws -> TopicManagementResult {
        let policy = policy ?? configuration.retryPolicy
        var result = TopicManagementResult()
        guard !tokens.isEmpty else { return result }
        let name = topic.hasPrefix("/topics/") ? topic : "/topics/" + topic
        var waiting: [(tokens: [String], attempt: Int, due: ContinuousClock.Instant)] =
            stride(from: 0, to: tokens.count, by: Self.topicManagementBatch).map {
                (Array(tokens[$0..<min($0 + Self.topicManagementBatch, tokens.count)]), 1, ContinuousClock.now)
            }
        var generator = SystemRandomNumberGenerator()
        while !waiting.isEmpty {
            let now = ContinuousClock.now
            let due = waiting.filter { $0.due <= now }
            guard !due.isEmpty else {
                sleepThread(for: waiting.map(\.due).min()! - now)
                continue
            }
            waiting.removeAll { $0.due <= now }
            let token = try credentials.accessToken()
            let headers: [(name: String, value: String)] = [
                ("Authorization", "Bearer " + token), ("Content-Type", "application/json; charset=UTF-8"), ("access_token_auth", "true"),
            ]
            let requests = due.map { call in
                HTTPClientRequest(url: "\(configuration.instanceIDBaseURL)/iid/v1:\(operation)", headers: headers,
                                  body: JSON.object(["to": .string(name), "registration_tokens": .array(call.tokens.map(JSON.string))]).serialized(),
                                  timeout: configuration.requestTimeout)
            }
            for (call, answer) in zip(due, http.perform(requests, concurrency: 4)) {
                result.calls += 1
                // Tries `tokens` again after the policy's wait for `error`, or reports them failed with `reason`.
                func again(_ tokens: [String], _ error: FCMError, reason: String) {
                    if let delay = policy.delay(forAttempt: call.attempt, outcome: .failed(error), using: &generator) {
                        waiting.append((tokens, call.attempt + 1, ContinuousClock.now + delay))
                    } else {
                        result.failures += tokens.map { ($0, reason) }
                    }
                }
                switch answer {
                case .failure(let failure):
                    again(call.tokens, FCMError(code: .unavailable, httpStatus: nil, message: failure.description), reason: failure.description)
                case .success(let response) where response.status != 200:
                    let reason = (try? JSON.parse(response.body))?["error"]?["message"]?.stringValue ?? "HTTP \(response.status)"
                    if response.status == 401 { credentials.invalidate(token) }
                    let retryable = response.status == 401 || response.status == 429 || response.status >= 500
                    let retryAfter = response.header("Retry-After").flatMap { RetryAfter.parse($0, now: .now()) }
                    let error = FCMError(code: .unavailable, httpStatus: response.status,
                                         message: reason, retryAfter: retryAfter, isRetryable: retryable)
                    again(call.tokens, error, reason: reason)
                case .success(let response):
                    let results = (try? JSON.parse(response.body))?["results"]?.arrayValue ?? []
                    var retry: [String] = []
                    for (index, token) in call.tokens.enumerated() {
                        let error = results.indices.contains(index) ? results[index]["error"]?.stringValue : "no result"
                        if let error, Self.retryableTokenErrors.contains(error) {
                            retry.append(token)
                        } else if let error {
                            result.failures.append((token, error))
                        } else {
                            result.succeeded += 1
                        }
                    }
                    if !retry.isEmpty {
                        again(retry, FCMError(code: .internal, httpStatus: 200, message: "INTERNAL", isRetryable: true), reason: "INTERNAL")
                    }
                }
            }
        }
        return result
    }
}
