import FCMMessage
import HeraldFCM
import HeraldHTTP
import HeraldJSON

extension FCMEmulator {
    /// FCM v1's `projects.registrations.topicSubscriptions` as the discovery document describes it
    /// (`fcm.v1.json` revision 20261023): `create` (POST `…/topicSubscriptions?topicName=`), `get`,
    /// `list` (`pageSize` ≤ 2,000, default 1,000, `pageToken`), `patch` (`allowMissing` creates) and
    /// `delete` (`allowMissing`). Strict: unknown query parameters and body fields are refused, topic
    /// names must match `[a-zA-Z0-9-_.~%]{1,900}`, a registration holds at most
    /// `maximumTopicsPerRegistration` topics, and adds or removes beyond `subscriptionsPerSecond` in
    /// one second are answered 429 RESOURCE_EXHAUSTED. A registration (token or FID) is known unless
    /// the configuration lists it unregistered or another sender's, as on the send path.
    func topicSubscriptions(_ request: EmulatorRequest, path: String, query: [String: String]) -> EmulatorResponse? {
        // ["", "v1", "projects", P, "registrations", R, "topicSubscriptions"(, T)]
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        guard segments.count == 7 || segments.count == 8, segments[1] == "v1", segments[2] == "projects",
              segments[4] == "registrations", segments[6] == "topicSubscriptions" else { return nil }
        let project = HTTPRequest.percentDecoded(segments[3]), registration = HTTPRequest.percentDecoded(segments[5])
        let topic = segments.count == 8 ? HTTPRequest.percentDecoded(segments[7]) : nil
        let response = answerTopicSubscription(request, project: project, registration: registration, topic: topic, query: query)
        state.withLock {
            $0.subscriptionRequestCount += 1
            $0.subscriptionRequests.append(SubscriptionRequestRecord(method: request.method, target: request.target, body: request.body, status: response.status))
        }
        return response
    }

    private func answerTopicSubscription(_ request: EmulatorRequest, project: String, registration: String, topic: String?,
                                         query: [String: String]) -> EmulatorResponse {
        guard isAuthorised(request) else {
            return .fcmError(401, "UNAUTHENTICATED", "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.")
        }
        guard project == configuration.projectID else {
            return .fcmError(403, "PERMISSION_DENIED", "Permission 'cloudmessaging.messages.create' denied on resource 'projects/\(project)'.")
        }
        let method: TopicSubscriptionRequest.Kind
        switch (request.method, topic) {
        case ("POST", nil): method = .create
        case ("GET", nil): method = .list
        case ("GET", _?): method = .get
        case ("PATCH", _?): method = .patch
        case ("DELETE", _?): method = .delete
        default: return .fcmError(405, "METHOD_NOT_ALLOWED", "\(request.method) is not a method of this resource.")
        }
        // Adds and removes count against the project's rate; reading does not.
        if [.create, .patch, .delete].contains(method), !withinSubscriptionRate() {
            return .fcmError(429, "RESOURCE_EXHAUSTED", "Quota exceeded for quota metric 'Topic subscription requests' (\(configuration.subscriptionsPerSecond) a second per project).",
                             headers: [("Retry-After", "1")])
        }
        let parameters: Set<String> = switch method {
        case .create: ["topicName"]
        case .list: ["pageSize", "pageToken"]
        case .get: []
        case .patch, .delete: ["allowMissing"]
        }
        for name in query.keys.sorted() where !parameters.contains(name) {
            return .fcmError(400, "INVALID_ARGUMENT", "Invalid JSON payload received. Unknown name \"\(name)\": Cannot bind query parameter.", field: name)
        }
        if let refusal = registrationRefusal(registration) { return refusal }
        if [.create, .patch, .delete].contains(method), configuration.subscriptionUnavailableRegistrations.contains(registration) {
            return .fcmError(503, "UNAVAILABLE", "The service is currently unavailable.", headers: [("Retry-After", "1")])
        }
        let topicName = topic ?? query["topicName"]
        if method != .list {
            guard let topicName, !topicName.isEmpty else {
                return .fcmError(400, "INVALID_ARGUMENT", "topicName is required.", field: "topic_name")
            }
            guard TopicName.isValid(topicName) else {
                return .fcmError(400, "INVALID_ARGUMENT", "Topic name \"\(topicName.prefix(100))\" does not match [a-zA-Z0-9-_.~%]{1,900}.", field: "topic_name")
            }
        }
        let name = "projects/\(project)/registrations/\(registration)/topicSubscriptions/\(topicName ?? "")"
        switch method {
        case .create, .patch:
            if let refusal = bodyRefusal(request.body, name: method == .patch ? name : nil) { return refusal }
        case .get, .list, .delete:
            guard request.body.isEmpty else { return .fcmError(400, "INVALID_ARGUMENT", "This method takes no request body.") }
        }
        guard let allowMissing = booleanParameter(query["allowMissing"]) else {
            return .fcmError(400, "INVALID_ARGUMENT", "Invalid value at 'allow_missing' (TYPE_BOOL), \"\(query["allowMissing"] ?? "")\"", field: "allow_missing")
        }
        switch method {
        case .list:
            return list(project: project, registration: registration, query: query)
        case .get:
            guard let created = state.withLock({ $0.topicsByRegistration[registration]?[topicName!] }) else {
                return .fcmError(404, "NOT_FOUND", "Requested entity was not found.")
            }
            return .json(200, subscriptionJSON(name: name, topic: topicName!, created: created))
        case .delete:
            let removed = state.withLock { $0.unsubscribe(registration, from: topicName!) }
            return removed || allowMissing ? .json(200, [:]) : .fcmError(404, "NOT_FOUND", "Requested entity was not found.")
        case .create, .patch:
            let topicName = topicName!
            let now = RFC3339.utc(secondsSince1970: UnixTime.now().seconds)
            enum Outcome { case created(String), exists(String), missing, full }
            let outcome: Outcome = state.withLock { state in
                if let created = state.topicsByRegistration[registration]?[topicName] { return .exists(created) }
                if method == .patch && !allowMissing { return .missing }
                if state.topicsByRegistration[registration]?.count ?? 0 >= configuration.maximumTopicsPerRegistration { return .full }
                _ = state.subscribe(registration, to: topicName, at: now)
                return .created(now)
            }
            switch outcome {
            case .created(let time): return .json(200, subscriptionJSON(name: name, topic: topicName, created: time))
            case .exists(let time):
                return method == .create ? .fcmError(409, "ALREADY_EXISTS", "Requested entity already exists.")
                    : .json(200, subscriptionJSON(name: name, topic: topicName, created: time))
            case .missing: return .fcmError(404, "NOT_FOUND", "Requested entity was not found.")
            // The reference gives the limit, not the answer: FAILED_PRECONDITION is Google's status
            // for a request the resource's state does not allow (here, and in Herald's reading).
            case .full:
                return .fcmError(400, "FAILED_PRECONDITION",
                                 "An app instance may be subscribed to at most \(configuration.maximumTopicsPerRegistration) topics.")
            }
        }
    }

    /// `list`: the registration's topics by name, a page at a time; the page token is the last
    /// topic of the page before.
    private func list(project: String, registration: String, query: [String: String]) -> EmulatorResponse {
        var pageSize = 1000
        if let text = query["pageSize"] {
            guard let size = Int32(text), size >= 0 else {
                return .fcmError(400, "INVALID_ARGUMENT", "Invalid value at 'page_size' (TYPE_INT32), \"\(text)\"", field: "page_size")
            }
            pageSize = size == 0 ? 1000 : min(Int(size), 2000)
        }
        pageSize = min(pageSize, configuration.subscriptionPageLimit)
        let after = query["pageToken"].flatMap { $0.isEmpty ? nil : $0 }
        let topics = state.withLock { $0.topicsByRegistration[registration] ?? [:] }
        let sorted = topics.keys.sorted().filter { after == nil || $0 > after! }
        let page = sorted.prefix(pageSize)
        var answer: JSONObject = [
            "topicSubscriptions": .array(page.map {
                subscriptionJSON(name: "projects/\(project)/registrations/\(registration)/topicSubscriptions/\($0)", topic: $0, created: topics[$0]!)
            }),
        ]
        if sorted.count > page.count, let last = page.last { answer["nextPageToken"] = .string(last) }
        return .json(200, .object(answer))
    }

    private func subscriptionJSON(name: String, topic: String, created: String) -> JSON {
        ["name": .string(name), "topicName": .string(topic), "createTime": .string(created)]
    }

    /// A `TopicSubscription` body: a JSON object of its fields only; its `name`, when given to
    /// patch, is the one in the path.
    private func bodyRefusal(_ body: [UInt8], name: String?) -> EmulatorResponse? {
        guard let object = (try? JSON.parse(body))?.objectValue else {
            return .fcmError(400, "INVALID_ARGUMENT", "Invalid JSON payload received. The request body is not a JSON object.")
        }
        for key in object.keys where !["name", "topicName", "topic_name", "createTime", "create_time"].contains(key) {
            return .fcmError(400, "INVALID_ARGUMENT", "Invalid JSON payload received. Unknown name \"\(key)\": Cannot find field.", field: key)
        }
        if let given = object["name"], let name, given.stringValue != name {
            return .fcmError(400, "INVALID_ARGUMENT", "The body's name \(given.serializedString()) is not the name in the path, \"\(name)\".", field: "name")
        }
        return nil
    }

    /// The send path's convention for registrations: one not shaped like a token or an FID is an
    /// INVALID_ARGUMENT; an unregistered one is 404 UNREGISTERED; another sender's, 403.
    private func registrationRefusal(_ registration: String) -> EmulatorResponse? {
        if registration.isEmpty || !registration.unicodeScalars.allSatisfy(RegistrationToken.isTokenScalar) {
            return .fcmError(400, "INVALID_ARGUMENT", "The registration \"\(registration.prefix(100))\" is not a registration token or an installation ID.",
                             errorCode: "INVALID_ARGUMENT", field: "parent")
        }
        if configuration.unregisteredTokens.contains(registration) {
            return .fcmError(404, "NOT_FOUND", "Requested entity was not found.", errorCode: "UNREGISTERED")
        }
        if configuration.otherSendersTokens.contains(registration) {
            return .fcmError(403, "PERMISSION_DENIED", "SenderId mismatch", errorCode: "SENDER_ID_MISMATCH")
        }
        return nil
    }

    /// A query boolean as Google reads it: absent is false.
    private func booleanParameter(_ text: String?) -> Bool? {
        switch text {
        case nil, "false": false
        case "true": true
        default: nil
        }
    }

    /// Counts one add or remove in the current whole second; false when the second's are used up.
    private func withinSubscriptionRate() -> Bool {
        let second = Int64(UnixTime.now().seconds.rounded(.down))
        return state.withLock { state in
            if state.rateSecond != second { (state.rateSecond, state.rateCount) = (second, 0) }
            guard state.rateCount < configuration.subscriptionsPerSecond else {
                state.subscriptionThrottled += 1
                return false
            }
            state.rateCount += 1
            return true
        }
    }

    // MARK: What tests read

    /// Every request to `topicSubscriptions` (capped like the messages), in arrival order.
    public func subscriptionRequests() -> [SubscriptionRequestRecord] {
        state.withLock { $0.subscriptionRequests.elements }
    }

    /// Requests to `topicSubscriptions` answered, and those answered 429 over the rate.
    public var subscriptionRequestCounts: (all: Int, throttled: Int) {
        state.withLock { ($0.subscriptionRequestCount, $0.subscriptionThrottled) }
    }

    /// Calls to the Instance ID API received, answered or refused.
    public var instanceIDCallCount: Int { state.withLock { $0.instanceIDCalls } }

    /// The topics `registration` is subscribed to, through either API.
    public func topics(of registration: String) -> Set<String> {
        state.withLock { Set(($0.topicsByRegistration[registration] ?? [:]).keys) }
    }
}
