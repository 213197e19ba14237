import HeraldSync
import HeraldCrypto
import HeraldFCM
import HeraldJSON
import Synchronization

/// A stand-in for FCM's HTTP v1 API and Google's OAuth token endpoint, for development and tests.
///
/// Endpoints (see `handle(_:)`): `POST /token`, `POST /v1/projects/{project}/messages:send`,
/// `POST /iid/v1:batchAdd` and `:batchRemove` (topic subscriptions), v1's
/// `/v1/projects/{project}/registrations/{registration}/topicSubscriptions[/{topic}]`,
/// `GET /emulator/messages[?since=N]`, `GET /emulator/counts`, `DELETE /emulator/messages`, and the FCM
/// Data API's `GET /v1beta1/projects/{project}/androidApps/{app}/deliveryData`. The request handling is a
/// pure function of the request and the emulator's state; `start(host:port:)` serves it on
/// HeraldHTTP.
public final class FCMEmulator: Sendable {
    public let configuration: FCMEmulatorConfiguration
    let verifier: JWTVerifier
    let state: Locked<EmulatorState>

    public init(configuration: FCMEmulatorConfiguration) throws(OpenSSLError) {
        self.configuration = configuration
        verifier = JWTVerifier(key: try RSAPublicKey(pem: configuration.trustedPublicKeyPEM), trustedIssuer: configuration.trustedClientEmail)
        var seed: UInt64 = 0
        if let configured = configuration.faults.seed { seed = configured } else { seed = UInt64.random(in: .min ... .max) }
        state = Locked(EmulatorState(capacity: configuration.messageCapacity, random: SplitMix64(state: seed)))
    }

    // MARK: What tests and the developer UI read

    /// Accepted messages with a sequence above `since`, oldest first.
    public func messages(since: Int = 0) -> [ReceivedMessage] {
        state.withLock { $0.messages.elements }.filter { $0.sequence > since }
    }

    /// Every request to `messages:send` so far (capped like the messages), in arrival order.
    public func sendAttempts() -> [SendAttemptRecord] {
        state.withLock { $0.attempts.elements }
    }

    /// How many access tokens the token endpoint has issued.
    public var accessTokensIssued: Int { state.withLock { $0.tokensIssued } }

    /// Forgets every issued access token, as if they had all expired: the next send with one of
    /// them gets 401 UNAUTHENTICATED.
    public func revokeAccessTokens() {
        state.withLock { $0.accessTokens.removeAll() }
    }

    /// Forgets the received messages and the attempt log.
    public func reset() {
        state.withLock {
            $0.messages.removeAll()
            $0.attempts.removeAll()
            $0.accepted = 0
            $0.acceptedByLabel = [:]
            $0.delivery = [:]
        }
    }

    // MARK: Requests

    /// Answers one request. Pure apart from the emulator's own state.
    public func handle(_ request: EmulatorRequest) -> EmulatorAnswer {
        let (path, query) = splitTarget(request.target)
        switch (request.method, path) {
        case ("POST", "/token"):
            return .respond(issueToken(request), delay: nil)
        case ("GET", "/emulator/messages"):
            let since = query["since"].flatMap { Int($0) } ?? 0
            let listed = messages(since: since)
            return .respond(.json(200, ["messages": .array(listed.map(\.json)),
                                        "last_sequence": .number(Double(listed.last?.sequence ?? since))]), delay: nil)
        case ("GET", "/emulator/counts"):
            // Every message accepted since the last reset, by analytics label: the log above keeps
            // only the last `messageCapacity`, these count a send of any size.
            let (accepted, byLabel) = state.withLock { ($0.accepted, $0.acceptedByLabel) }
            return .respond(.json(200, ["accepted": .number(Double(accepted)), "kept": .number(Double(configuration.messageCapacity)),
                                        "by_label": .object(JSONObject(byLabel.sorted { $0.key < $1.key }.map { ($0.key, JSON.number(Double($0.value))) }))]),
                            delay: nil)
        case ("POST", "/iid/v1:batchAdd"):
            return .respond(manageTopic(request, adding: true), delay: nil)
        case ("POST", "/iid/v1:batchRemove"):
            return .respond(manageTopic(request, adding: false), delay: nil)
        case ("DELETE", "/emulator/messages"):
            reset()
            return .respond(EmulatorResponse(status: 204), delay: nil)
        default:
            if path.hasPrefix("/v1beta1/projects/") && path.hasSuffix("/deliveryData") {
                guard request.method == "GET" else { return .respond(.fcmError(405, "METHOD_NOT_ALLOWED", "Use GET."), delay: nil) }
                return deliveryData(request, path: path, query: query)
            }
            if let answer = topicSubscriptions(request, path: path, query: query) {
                return .respond(answer, delay: nil)
            }
            if let project = sendProject(path) {
                guard request.method == "POST" else {
                    return .respond(.fcmError(405, "METHOD_NOT_ALLOWED", "Use POST to send a message."), delay: nil)
                }
                return send(request, project: project)
            }
            return .respond(.fcmError(404, "NOT_FOUND", "The emulator has no \(request.method) \(path)."), delay: nil)
        }
    }

    /// `{project}` of `/v1/projects/{project}/messages:send`. Both this and `splitTarget` count and
    /// cut by bytes: every send asks, and walking the path by characters was a tenth of what a
    /// message cost the emulator (callgrind).
    private func sendProject(_ path: String) -> String? {
        let prefix = "/v1/projects/", suffix = "/messages:send"
        let bytes = path.utf8
        guard path.hasPrefix(prefix), path.hasSuffix(suffix), bytes.count > prefix.utf8.count + suffix.utf8.count else { return nil }
        return String(path[bytes.index(bytes.startIndex, offsetBy: prefix.utf8.count)..<bytes.index(bytes.endIndex, offsetBy: -suffix.utf8.count)])
    }

    private func splitTarget(_ target: String) -> (String, [String: String]) {
        let bytes = target.utf8
        guard let mark = bytes.firstIndex(of: UInt8(ascii: "?")) else { return (target, [:]) }
        return (String(target[..<mark]), FormDecoding.decode(String(target[bytes.index(after: mark)...])))
    }
}
