import COpenSSL
import HeraldFCM
import HeraldJSON

extension FCMEmulator {
    /// `POST /token`: the JWT-bearer grant. Checks the assertion and issues an opaque token.
    func issueToken(_ request: EmulatorRequest) -> EmulatorResponse {
        let form = FormDecoding.decode(String(decoding: request.body, as: UTF8.self))
        guard form["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer" else {
            return .oauthError(400, "unsupported_grant_type", "Invalid grant_type: \(form["grant_type"] ?? "")")
        }
        guard let assertion = form["assertion"], !assertion.isEmpty else {
            return .oauthError(400, "invalid_request", "Missing required parameter: assertion")
        }
        var audiences = configuration.extraAudiences
        if let host = request.header("Host") { audiences += ["http://\(host)/token", "https://\(host)/token"] }
        if let problem = verifier.problem(with: assertion, audiences: audiences, now: .now()) {
            return .oauthError(400, "invalid_grant", problem)
        }
        let token = "emu." + Base64URL.encode(randomBytes(32))
        let lifetime = configuration.accessTokenLifetime
        state.withLock { state in
            let now = ContinuousClock.now
            state.accessTokens = state.accessTokens.filter { $0.value > now }
            state.accessTokens[token] = now + .seconds(lifetime)
            state.tokensIssued += 1
        }
        return .json(200, ["access_token": .string(token), "expires_in": .number(Double(lifetime)), "token_type": "Bearer"])
    }

    /// Whether the request carries a bearer token this emulator issued and that has not expired.
    func isAuthorised(_ request: EmulatorRequest) -> Bool {
        guard let authorization = request.header("Authorization"), authorization.hasPrefix("Bearer ") else { return false }
        let token = String(authorization.dropFirst("Bearer ".count))
        return state.withLock { state in
            guard let expiry = state.accessTokens[token] else { return false }
            return ContinuousClock.now < expiry
        }
    }
}

/// Cryptographically random bytes from libcrypto.
func randomBytes(_ count: Int) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: count)
    if RAND_bytes(&bytes, Int32(count)) != 1 {
        var generator = SystemRandomNumberGenerator()
        for index in bytes.indices { bytes[index] = generator.next() }
    }
    return bytes
}

/// application/x-www-form-urlencoded decoding (a query string or a form body).
enum FormDecoding {
    static func decode(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = unescape(parts[0])
            if fields[key] == nil { fields[key] = parts.count > 1 ? unescape(parts[1]) : "" }
        }
        return fields
    }

    static func unescape(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+"): bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                if let high = iterator.next(), let low = iterator.next(), let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16) {
                    bytes.append(value)
                }
            default: bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
