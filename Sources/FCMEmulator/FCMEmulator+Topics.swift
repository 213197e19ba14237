import FCMMessage
import HeraldFCM
import HeraldJSON

extension FCMEmulator {
    /// `POST /iid/v1:batchAdd` and `:batchRemove`: the Instance ID API's server-side topic
    /// management, as firebase-admin calls it. Up to 1,000 tokens a call; each token gets its own
    /// result, `{}` or `{"error": "NOT_FOUND"}` (a token the emulator answers UNREGISTERED for) or
    /// `{"error": "INVALID_ARGUMENT"}` (not shaped like a token).
    func manageTopic(_ request: EmulatorRequest, adding: Bool) -> EmulatorResponse {
        let call = state.withLock { state in
            state.instanceIDCalls += 1
            return state.instanceIDCalls
        }
        if call <= configuration.instanceIDUnavailableCalls {
            return .fcmError(503, "UNAVAILABLE", "The service is currently unavailable.", headers: [("Retry-After", "1")])
        }
        guard isAuthorised(request) else {
            return .fcmError(401, "UNAUTHENTICATED", "Request is missing required authentication credential.")
        }
        // The API takes an OAuth access token only when told so; without the header it wants a server key.
        guard request.header("access_token_auth") == "true" else {
            return .fcmError(401, "UNAUTHENTICATED", "An OAuth access token needs the header access_token_auth: true.")
        }
        guard let body = try? JSON.parse(request.body), let to = body["to"]?.stringValue,
              let tokens = body["registration_tokens"]?.arrayValue?.compactMap(\.stringValue), !tokens.isEmpty else {
            return .fcmError(400, "INVALID_ARGUMENT", "The request needs \"to\" (a topic) and \"registration_tokens\" (a non-empty list).")
        }
        guard tokens.count <= 1000 else {
            return .fcmError(400, "INVALID_ARGUMENT", "At most 1000 registration tokens a call, found \(tokens.count).")
        }
        guard to.hasPrefix("/topics/") else {
            return .fcmError(400, "INVALID_ARGUMENT", "\"to\" names a topic as /topics/NAME, found \"\(to)\".")
        }
        let topic = String(to.dropFirst("/topics/".count))
        guard TopicName.isValid(topic) else {
            return .fcmError(400, "INVALID_ARGUMENT", "Invalid topic name \"\(to)\".")
        }
        var results: [JSON] = []
        state.withLock { state in
            state.topicManagementCalls += 1
            for token in tokens {
                if token.isEmpty || !token.unicodeScalars.allSatisfy(RegistrationToken.isTokenScalar) {
                    results.append(["error": "INVALID_ARGUMENT"])
                } else if configuration.instanceIDFlakyTokens.contains(token), state.flakyTokensSeen.insert(token).inserted {
                    results.append(["error": "INTERNAL"])
                } else if configuration.unregisteredTokens.contains(token) {
                    results.append(["error": "NOT_FOUND"])
                } else {
                    if adding {
                        _ = state.subscribe(token, to: topic, at: RFC3339.utc(secondsSince1970: UnixTime.now().seconds))
                    } else {
                        _ = state.unsubscribe(token, from: topic)
                    }
                    results.append([:])
                }
            }
        }
        return .json(200, ["results": .array(results)])
    }

    /// The registrations subscribed to `topic`, through either API.
    public func subscribers(of topic: String) -> Set<String> {
        state.withLock { $0.subscriptions[topic] ?? [] }
    }

    /// How many batchAdd and batchRemove calls have been answered.
    public var topicManagementCalls: Int { state.withLock { $0.topicManagementCalls } }
}
