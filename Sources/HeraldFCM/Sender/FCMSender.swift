import FCMMessage
import HeraldJSON

/// Sends v1 messages to FCM: one blocking attempt per message, or many at once with bounded
/// concurrency over reused connections. Safe to use from many threads.
///
/// It knows nothing of campaigns: callers hand it the `message` object already rendered, as JSON
/// or as its serialized bytes. A refused bearer token (401) is refreshed and the send tried once
/// more inside every call; other retries are the caller's choice (`RetryPolicy`, or
/// `sendWithRetries`).
public final class FCMSender: Sendable {
    public let configuration: FCMConfiguration
    public let credentials: any AccessTokenProvider
    let http: CurlHTTPClient

    public init(configuration: FCMConfiguration, credentials: any AccessTokenProvider, http: CurlHTTPClient = CurlHTTPClient()) {
        self.configuration = configuration
        self.credentials = credentials
        self.http = http
    }

    /// A sender for a service account's key, for the project the key names unless `configuration`
    /// says otherwise.
    public convenience init(configuration: FCMConfiguration, serviceAccount: ServiceAccount, tokenURI: String? = nil) {
        let http = CurlHTTPClient()
        self.init(configuration: configuration,
                  credentials: ServiceAccountTokenProvider(account: serviceAccount, tokenURI: tokenURI, http: http),
                  http: http)
    }

    /// Sends one message (the v1 `message` object, serialized) and waits for FCM's answer.
    public func send(messageJSON: [UInt8], validateOnly: Bool = false) -> SendOutcome {
        send(batch: [messageJSON], validateOnly: validateOnly, concurrency: 1)[0]
    }

    /// Sends one message (the v1 `message` object) and waits for FCM's answer.
    public func send(_ message: JSON, validateOnly: Bool = false) -> SendOutcome {
        send(messageJSON: message.serialized(), validateOnly: validateOnly)
    }

    /// Sends each message once, at most `concurrency` at a time, on the calling thread; outcomes
    /// are in the order of `batch`.
    public func send(batch: [JSON], validateOnly: Bool = false, concurrency: Int) -> [SendOutcome] {
        send(batch: batch.map { $0.serialized() }, validateOnly: validateOnly, concurrency: concurrency)
    }

    /// Sends each serialized message once, at most `concurrency` at a time, on the calling thread;
    /// outcomes are in the order of `batch`.
    public func send(batch: [[UInt8]], validateOnly: Bool = false, concurrency: Int) -> [SendOutcome] {
        guard !batch.isEmpty else { return [] }
        let bodies = batch.map { requestBody(message: $0, validateOnly: validateOnly) }
        let token: String
        do {
            token = try credentials.accessToken()
        } catch {
            return bodies.map { _ in .failed(error) }
        }
        var outcomes = attempt(bodies, token: token, concurrency: concurrency)

        // FCM refused our bearer token: fetch a new one and try those messages once more.
        let refused = outcomes.indices.filter { FCMResponseClassifier.isOwnTokenRefused(outcomes[$0]) }
        guard !refused.isEmpty else { return outcomes }
        credentials.invalidate(token)
        do {
            let fresh = try credentials.accessToken()
            let again = attempt(refused.map { bodies[$0] }, token: fresh, concurrency: concurrency)
            for (index, outcome) in zip(refused, again) { outcomes[index] = outcome }
        } catch {
            for index in refused { outcomes[index] = .failed(error) }
        }
        return outcomes
    }

    private func attempt(_ bodies: [[UInt8]], token: String, concurrency: Int) -> [SendOutcome] {
        let headers: [(name: String, value: String)] = [
            ("Authorization", "Bearer " + token),
            ("Content-Type", "application/json; charset=UTF-8"),
        ]
        let url = configuration.sendURL
        let requests = bodies.map {
            HTTPClientRequest(url: url, headers: headers, body: $0, timeout: configuration.requestTimeout)
        }
        let now = UnixTime.now()
        return http.perform(requests, concurrency: concurrency).map { result in
            switch result {
            case .success(let response): FCMResponseClassifier.outcome(for: response, url: url, now: now)
            case .failure(let failure): FCMResponseClassifier.outcome(for: failure)
            }
        }
    }

    /// `{"message": …, "validate_only": …}` around the already serialized message.
    func requestBody(message: [UInt8], validateOnly: Bool) -> [UInt8] {
        var body: [UInt8] = []
        body.reserveCapacity(message.count + 40)
        body.append(contentsOf: #"{"message":"#.utf8)
        body.append(contentsOf: message)
        body.append(contentsOf: (validateOnly ? #","validate_only":true}"# : #","validate_only":false}"#).utf8)
        return body
    }
}
