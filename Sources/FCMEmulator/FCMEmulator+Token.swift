import HeraldSync
import HeraldCrypto
import HeraldHTTP
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
        var audiences = configuration.extraAudiences + [JWTVerifier.googleTokenAudience]
        if let host = request.header("Host") { audiences += ["http://\(host)/token", "https://\(host)/token"] }
        if let problem = verifier.problem(with: assertion, audiences: audiences, now: .now()) {
            return .oauthError(400, "invalid_grant", problem)
        }
        let token = "emu." + SecureRandom.token()
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

/// application/x-www-form-urlencoded fields (a query string or a form body) by name, the first
/// of a repeated name winning, as Google's endpoints read them.
enum FormDecoding {
    static func decode(_ text: String) -> [String: String] {
        Dictionary(HTTPRequest.decodeForm(Array(text.utf8)).map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
    }
}
