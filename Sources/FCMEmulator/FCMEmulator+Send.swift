import FCMMessage
import HeraldFCM
import HeraldJSON

extension FCMEmulator {
    /// `POST /v1/projects/{project}/messages:send`.
    func send(_ request: EmulatorRequest, project: String) -> EmulatorAnswer {
        let parsed = try? JSON.parse(request.body)
        let answer = answerSend(request, project: project, parsed: parsed)
        let status = answer.response?.status ?? 0
        state.withLock {
            $0.attempts.append(SendAttemptRecord(receivedAt: .now, status: status, message: parsed?["message"]))
        }
        return answer
    }

    private func answerSend(_ request: EmulatorRequest, project: String, parsed: JSON?) -> EmulatorAnswer {
        guard isAuthorised(request) else {
            return .respond(.fcmError(401, "UNAUTHENTICATED",
                "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential."), delay: nil)
        }
        guard project == configuration.projectID else {
            return .respond(.fcmError(403, "PERMISSION_DENIED", "Permission 'cloudmessaging.messages.create' denied on resource 'projects/\(project)'."), delay: nil)
        }
        var delay: Duration?
        switch drawFault() {
        case .drop: return .dropConnection
        case .quota:
            return .respond(.fcmError(429, "RESOURCE_EXHAUSTED", "Quota exceeded for quota metric 'Send requests'.", errorCode: "QUOTA_EXCEEDED",
                                      headers: [("Retry-After", String(configuration.faults.retryAfterSeconds))]), delay: nil)
        case .unavailable:
            let retryAfter = configuration.faults.unavailableRetryAfter.map { [("Retry-After", String($0))] } ?? []
            return .respond(.fcmError(503, "UNAVAILABLE", "The service is currently unavailable.", errorCode: "UNAVAILABLE", headers: retryAfter), delay: nil)
        case .internal:
            return .respond(.fcmError(500, "INTERNAL", "Internal error encountered.", errorCode: "INTERNAL"), delay: nil)
        case .slow: delay = configuration.faults.slowDelay
        case nil: break
        }
        return .respond(validateAndAccept(parsed, project: project), delay: delay)
    }

    private func validateAndAccept(_ parsed: JSON?, project: String) -> EmulatorResponse {
        guard let body = parsed?.objectValue else {
            return .fcmError(400, "INVALID_ARGUMENT", "Invalid JSON payload received. The request body is not a JSON object.", errorCode: "INVALID_ARGUMENT")
        }
        for key in body.keys where !["message", "validate_only", "validateOnly"].contains(key) {
            return .fcmError(400, "INVALID_ARGUMENT", "Invalid JSON payload received. Unknown name \"\(key)\": Cannot find field.",
                             errorCode: "INVALID_ARGUMENT", field: key)
        }
        let validateOnlyValue = body["validate_only"] ?? body["validateOnly"] ?? .bool(false)
        guard let validateOnly = validateOnlyValue.boolValue else {
            return .fcmError(400, "INVALID_ARGUMENT", "Invalid value at 'validate_only' (TYPE_BOOL), \(validateOnlyValue.serializedString())",
                             errorCode: "INVALID_ARGUMENT", field: "validate_only")
        }
        guard let message = body["message"] else {
            return .fcmError(400, "INVALID_ARGUMENT", "Request contains an invalid argument: message is required.", errorCode: "INVALID_ARGUMENT", field: "message")
        }
        if let failure = MessageValidator.validate(message) {
            return .fcmError(400, "INVALID_ARGUMENT", failure.message, errorCode: "INVALID_ARGUMENT", field: failure.field)
        }
        // An installation ID is answered as a token is: the same lists of refused devices hold both.
        if let token = message["token"]?.stringValue ?? message["fid"]?.stringValue {
            if configuration.unregisteredTokens.contains(token) {
                return .fcmError(404, "NOT_FOUND", "Requested entity was not found.", errorCode: "UNREGISTERED")
            }
            if configuration.otherSendersTokens.contains(token) {
                return .fcmError(403, "PERMISSION_DENIED", "SenderId mismatch", errorCode: "SENDER_ID_MISMATCH")
            }
            if configuration.throttledTokens.contains(token) {
                return .fcmError(429, "RESOURCE_EXHAUSTED", "Message rate exceeded for this device.", errorCode: "QUOTA_EXCEEDED",
                                 headers: [("Retry-After", String(configuration.faults.retryAfterSeconds))])
            }
        }
        if !configuration.throttledTopics.isEmpty, let topic = Self.topicsNamed(by: message).first(where: configuration.throttledTopics.contains) {
            return .fcmError(429, "RESOURCE_EXHAUSTED", "Message rate exceeded for topic \(topic).", errorCode: "QUOTA_EXCEEDED",
                             headers: [("Retry-After", String(configuration.faults.retryAfterSeconds))])
        }
        // A dry run is checked like a send but not delivered; FCM names it "fake_message_id".
        if validateOnly { return .json(200, ["name": .string("projects/\(project)/messages/fake_message_id")]) }
        let name: String = state.withLock { state in
            let sequence = state.nextSequence
            state.nextSequence += 1
            let name = "projects/\(project)/messages/emu-\(sequence)"
            var received = ReceivedMessage(sequence: sequence, name: name, message: message, receivedAt: .now())
            received.reached = state.reach(topic: message["topic"]?.stringValue, condition: message["condition"]?.stringValue)
            state.messages.append(received)
            state.accepted += 1
            state.acceptedByLabel[message["fcm_options"]?["analytics_label"]?.stringValue ?? "", default: 0] += 1
            Self.tally(message, configuration: configuration, day: Self.day(.now()), into: &state)
            return name
        }
        return .json(200, ["name": .string(name)])
    }

    private enum Fault { case drop, quota, unavailable, `internal`, slow }

    private func drawFault() -> Fault? {
        let faults = configuration.faults
        guard faults.isActive else { return nil }
        let draw = state.withLock { Double.random(in: 0..<1, using: &$0.random) }
        var threshold = 0.0
        for (share, fault) in [(faults.dropConnection, Fault.drop), (faults.quotaExceeded, .quota), (faults.unavailable, .unavailable),
                               (faults.internalError, .internal), (faults.slow, .slow)] {
            threshold += share
            if draw < threshold { return fault }
        }
        return nil
    }
}

extension FCMEmulator {
    /// The topics a message is sent to: its `topic`, or those its `condition` mentions.
    static func topicsNamed(by message: JSON) -> [String] {
        if let topic = message["topic"]?.stringValue { return [topic] }
        guard let condition = message["condition"]?.stringValue, let parsed = try? TopicCondition.parse(condition) else { return [] }
        return parsed.topicMentions
    }
}
