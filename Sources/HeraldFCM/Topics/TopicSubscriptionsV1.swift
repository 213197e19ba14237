import FCMMessage
import HeraldJSON
import HeraldSync

/// Topic subscriptions through FCM v1's `projects.registrations.topicSubscriptions`: one request
/// per registration (a token or an FID), many in flight at once over the sender's HTTP client,
/// at the rate `SubscriptionPermits` allows every instance together.
extension FCMSender {
    /// Requests of one round, and how many of them are in flight at once.
    static let subscriptionRound = 500
    static let subscriptionConcurrency = 100

    /// Subscribes (`create`) or unsubscribes (`delete` with `allowMissing`) each registration,
    /// tried as FCM's guidance asks: a 429 (RESOURCE_EXHAUSTED: over 3,000 requests a second for
    /// the project) holds every instance for its Retry-After and is tried again with exponential
    /// backoff, as are a 5xx and a request not answered; a 401 gets a fresh access token and another
    /// try. ALREADY_EXISTS on create and NOT_FOUND on delete are the state wanted, so success.
    /// Whatever else FCM refuses is reported per registration by its code (UNREGISTERED,
    /// INVALID_ARGUMENT, NOT_FOUND, PERMISSION_DENIED, UNEXPECTED_ANSWER…).
    func changeSubscriptionsV1(_ registrations: [String], topic: String, subscribing: Bool,
                               permits: any SubscriptionPermits, policy: RetryPolicy? = nil) throws -> TopicManagementResult {
        let policy = policy ?? configuration.retryPolicy
        var result = TopicManagementResult()
        var next = 0
        var retries: [(index: Int, attempt: Int, due: ContinuousClock.Instant)] = []
        var generator = SystemRandomNumberGenerator()
        while next < registrations.count || !retries.isEmpty {
            let now = ContinuousClock.now
            let dueRetries = retries.filter { $0.due <= now }.count
            let wanted = min(Self.subscriptionRound, dueRetries + registrations.count - next)
            guard wanted > 0 else {
                sleepThread(for: retries.map(\.due).min()! - now)
                continue
            }
            let grant = try permits.take(wanted)
            guard grant.granted > 0 else {
                sleepThread(for: max(grant.wait, .milliseconds(1)))
                continue
            }
            // Retries that are due first, then registrations not yet tried.
            var round: [(index: Int, attempt: Int)] = []
            retries.removeAll { retry in
                guard retry.due <= now, round.count < grant.granted else { return false }
                round.append((retry.index, retry.attempt))
                return true
            }
            while round.count < grant.granted, next < registrations.count {
                round.append((next, 1))
                next += 1
            }
            try permits.giveBack(grant.granted - round.count)

            let token = try credentials.accessToken()
            let requests = round.map { item in
                let registration = registrations[item.index]
                let request = subscribing ? TopicSubscriptionRequest.create(project: configuration.projectID, registration: registration, topic: topic)
                    : TopicSubscriptionRequest.delete(project: configuration.projectID, registration: registration, topic: topic)
                return httpRequest(request, token: token)
            }
            var hold: Duration?
            var refused = false
            for (item, answer) in zip(round, http.perform(requests, concurrency: Self.subscriptionConcurrency)) {
                result.calls += 1
                let error: FCMError
                switch Self.subscriptionAnswer(answer, subscribing: subscribing, url: requests[0].url) {
                case .done:
                    result.succeeded += 1
                    continue
                case .failed(let failure):
                    error = failure
                }
                if error.httpStatus == 429 {
                    result.throttled += 1
                    hold = max(hold ?? .zero, error.retryAfter ?? policy.backoffCeiling(afterAttempt: item.attempt))
                }
                // Our own bearer token was refused: a fresh one for the next round.
                if error.httpStatus == 401, error.code == .unauthenticated {
                    refused = true
                    if item.attempt < policy.maxAttempts {
                        retries.append((item.index, item.attempt + 1, .now))
                        continue
                    }
                }
                if let delay = policy.delay(forAttempt: item.attempt, outcome: .failed(error), using: &generator) {
                    retries.append((item.index, item.attempt + 1, .now + delay))
                } else {
                    result.failures.append((registrations[item.index], error.code.rawValue))
                }
            }
            if refused { credentials.invalidate(token) }
            if let hold { try permits.hold(for: hold) }
        }
        return result
    }

    /// What one subscription answer means.
    enum SubscriptionAnswer {
        case done
        case failed(FCMError)
    }

    /// Reads a create or delete answer. FCM's own error body is needed to read a 4xx as a
    /// registration's problem (`FCMResponseClassifier`); ALREADY_EXISTS (create) and NOT_FOUND
    /// without UNREGISTERED (delete with `allowMissing`: the subscription is not there) are done.
    static func subscriptionAnswer(_ answer: Result<HTTPClientResponse, HTTPTransportError>, subscribing: Bool, url: String) -> SubscriptionAnswer {
        switch answer {
        case .failure(let failure):
            guard case .failed(let error) = FCMResponseClassifier.outcome(for: failure) else { return .done }
            return .failed(error)
        case .success(let response) where (200..<300).contains(response.status):
            return .done
        case .success(let response):
            guard case .failed(let error) = FCMResponseClassifier.outcome(for: response, url: url, now: .now()) else { return .done }
            if subscribing, error.httpStatus == 409, error.code.rawValue == "ALREADY_EXISTS" { return .done }
            if !subscribing, error.httpStatus == 404, error.code.rawValue == "NOT_FOUND" { return .done }
            return .failed(error)
        }
    }

    /// The HTTP request of a subscription request, with our bearer token.
    func httpRequest(_ request: TopicSubscriptionRequest, token: String) -> HTTPClientRequest {
        var headers: [(name: String, value: String)] = [("Authorization", "Bearer " + token)]
        if !request.body.isEmpty { headers.append(("Content-Type", "application/json; charset=UTF-8")) }
        return HTTPClientRequest(method: request.method, url: configuration.baseURL + request.target, headers: headers,
                                 body: request.body, timeout: configuration.requestTimeout)
    }

    /// Every topic `registration` (a token or an FID) is subscribed to, from FCM v1's `list`,
    /// page after page. Throws the FCM error that ended it after the retry policy's tries.
    public func topics(of registration: String, policy: RetryPolicy? = nil) throws -> [TopicSubscription] {
        let policy = policy ?? configuration.retryPolicy
        var topics: [TopicSubscription] = []
        var pageToken: String?
        repeat {
            let request = TopicSubscriptionRequest.list(project: configuration.projectID, registration: registration, pageToken: pageToken)
            let page = try exchangeWithRetries(request, policy: policy)
            topics += page["topicSubscriptions"]?.arrayValue?.compactMap(TopicSubscription.init(json:)) ?? []
            pageToken = page["nextPageToken"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        } while pageToken != nil
        return topics
    }

    /// Makes one request until it is answered 2xx (its JSON body returned) or the policy gives up.
    func exchangeWithRetries(_ request: TopicSubscriptionRequest, policy: RetryPolicy) throws -> JSON {
        var attempt = 1
        var generator = SystemRandomNumberGenerator()
        while true {
            let token = try credentials.accessToken()
            let http = httpRequest(request, token: token)
            let answer = self.http.perform(http)
            if case .success(let response) = answer, (200..<300).contains(response.status) {
                return (try? JSON.parse(response.body)) ?? [:]
            }
            let outcome: SendOutcome = switch answer {
            case .success(let response): FCMResponseClassifier.outcome(for: response, url: http.url, now: .now())
            case .failure(let failure): FCMResponseClassifier.outcome(for: failure)
            }
            guard case .failed(let error) = outcome else { return [:] }
            if FCMResponseClassifier.isOwnTokenRefused(outcome) { credentials.invalidate(token) }
            let refreshed = FCMResponseClassifier.isOwnTokenRefused(outcome) && attempt == 1
            guard let delay = refreshed ? .zero : policy.delay(forAttempt: attempt, outcome: outcome, using: &generator) else { throw error }
            sleepThread(for: delay)
            attempt += 1
        }
    }
}
