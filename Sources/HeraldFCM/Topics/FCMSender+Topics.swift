import HeraldJSON

/// What one subscribe or unsubscribe did: how many tokens it changed, the tokens the Instance ID
/// API refused (with its reason, such as NOT_FOUND for a dead token), and how many calls it took.
public struct TopicManagementResult: Sendable, Equatable {
    public var succeeded = 0
    public var failures: [(token: String, reason: String)] = []
    public var calls = 0

    public static func == (lhs: TopicManagementResult, rhs: TopicManagementResult) -> Bool {
        lhs.succeeded == rhs.succeeded && lhs.calls == rhs.calls && lhs.failures.map(\.token) == rhs.failures.map(\.token)
    }
}

extension FCMSender {
    /// Tokens one Instance ID call takes (firebase-admin's `subscribe_to_topic` limit too).
    public static let topicManagementBatch = 1000

    /// Subscribes `tokens` to `topic` server-side through the Instance ID API (`iid/v1:batchAdd`),
    /// 1,000 tokens a call, so apps need no client convention to join a topic.
    public func subscribe(_ tokens: [String], to topic: String) throws -> TopicManagementResult {
        try manageTopic(tokens, topic: topic, operation: "batchAdd")
    }

    /// Unsubscribes `tokens` from `topic` (`iid/v1:batchRemove`).
    public func unsubscribe(_ tokens: [String], from topic: String) throws -> TopicManagementResult {
        try manageTopic(tokens, topic: topic, operation: "batchRemove")
    }

    func manageTopic(_ tokens: [String], topic: String, operation: String) throws -> TopicManagementResult {
        var result = TopicManagementResult()
        guard !tokens.isEmpty else { return result }
        let token = try credentials.accessToken()
        let headers: [(name: String, value: String)] = [
            ("Authorization", "Bearer " + token), ("Content-Type", "application/json; charset=UTF-8"), ("access_token_auth", "true"),
        ]
        let name = topic.hasPrefix("/topics/") ? topic : "/topics/" + topic
        let chunks = stride(from: 0, to: tokens.count, by: Self.topicManagementBatch).map {
            Array(tokens[$0..<min($0 + Self.topicManagementBatch, tokens.count)])
        }
        let requests = chunks.map { chunk in
            HTTPClientRequest(url: "\(configuration.instanceIDBaseURL)/iid/v1:\(operation)", headers: headers,
                              body: JSON.object(["to": .string(name), "registration_tokens": .array(chunk.map(JSON.string))]).serialized(),
                              timeout: configuration.requestTimeout)
        }
        for (chunk, answer) in zip(chunks, http.perform(requests, concurrency: 4)) {
            result.calls += 1
            switch answer {
            case .failure(let failure):
                result.failures += chunk.map { ($0, failure.description) }
            case .success(let response) where response.status != 200:
                let reason = (try? JSON.parse(response.body))?["error"]?["message"]?.stringValue ?? "HTTP \(response.status)"
                result.failures += chunk.map { ($0, reason) }
            case .success(let response):
                let results = (try? JSON.parse(response.body))?["results"]?.arrayValue ?? []
                for (index, token) in chunk.enumerated() {
                    if let error = results.indices.contains(index) ? results[index]["error"]?.stringValue : "no result" {
                        result.failures.append((token, error))
                    } else {
                        result.succeeded += 1
                    }
                }
            }
        }
        return result
    }
}
