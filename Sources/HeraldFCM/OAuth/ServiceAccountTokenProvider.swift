import FCMMessage
import HeraldSync
import HeraldJSON
import Synchronization

/// Access tokens for a service account (the OAuth 2.0 JWT-bearer grant, RFC 7523): signs an
/// assertion, exchanges it at the token endpoint, caches the token and refreshes it a few minutes
/// before it expires or when FCM refuses it. One refresh at a time; callers that need a token
/// during a refresh wait for it. Tokens and the key are never logged or put in errors.
public final class ServiceAccountTokenProvider: AccessTokenProvider {
    public let account: ServiceAccount
    /// The token endpoint: the key's `token_uri` unless configured (tests use the emulator's).
    public let tokenURI: String
    private let http: CurlHTTPClient
    private let refreshMargin: Duration
    private let timeout: Duration
    /// The OAuth scope asked for (FCM's v1 API, or `cloud-platform` for the Data API).
    public let scope: String

    private struct Cached {
        var token: String
        var refreshAt: ContinuousClock.Instant
    }
    private let cached = Mutex<Cached?>(nil)
    /// Held while a token is fetched, so that only one fetch runs at a time.
    private let refreshing = Mutex<Int>(0)

    /// - Parameters:
    ///   - tokenURI: overrides the key's `token_uri` (the assertion's audience follows it).
    ///   - refreshMargin: how long before expiry a token is replaced (at most half its lifetime).
    public init(
        account: ServiceAccount,
        tokenURI: String? = nil,
        http: CurlHTTPClient = CurlHTTPClient(maxIdleSessions: 2),
        refreshMargin: Duration = .seconds(300),
        timeout: Duration = .seconds(30),
        scope: String = JWTAssertion.firebaseMessagingScope
    ) {
        self.scope = scope
        self.account = account
        self.tokenURI = tokenURI ?? account.tokenURI
        self.http = http
        self.refreshMargin = refreshMargin
        self.timeout = timeout
    }

    /// How many tokens have been fetched so far.
    public var fetchCount: Int { refreshing.withLock { $0 } }

    public func accessToken() throws(FCMError) -> String {
        if let token = currentToken() { return token }
        return try refreshing.withLock { (fetches: inout Int) throws(FCMError) -> String in
            // Another thread may have refreshed while this one waited for the lock.
            if let token = currentToken() { return token }
            let (token, lifetime) = try fetch()
            fetches += 1
            let margin = min(refreshMargin, lifetime / 2)
            cached.withLock { $0 = Cached(token: token, refreshAt: .now + lifetime - margin) }
            return token
        }
    }

    public func invalidate(_ token: String) {
        cached.withLock { if $0?.token == token { $0 = nil } }
    }

    private func currentToken() -> String? {
        cached.withLock { cached in
            guard let cached, ContinuousClock.now < cached.refreshAt else { return nil }
            return cached.token
        }
    }

    /// Exchanges a fresh assertion for a token and its lifetime.
    private func fetch() throws(FCMError) -> (String, Duration) {
        let assertion: String
        do {
            assertion = try JWTAssertion.make(for: account, audience: tokenURI, issuedAt: Int(UnixTime.now().seconds), scope: scope)
        } catch {
            throw FCMError(code: .authentication, httpStatus: nil, message: "cannot sign the JWT assertion: \(error)", isRetryable: false)
        }
        let form = "grant_type=" + FormEncoding.escape("urn:ietf:params:oauth:grant-type:jwt-bearer")
            + "&assertion=" + FormEncoding.escape(assertion)
        let request = HTTPClientRequest(
            url: tokenURI,
            headers: [("Content-Type", "application/x-www-form-urlencoded")],
            body: Array(form.utf8), timeout: timeout)

        let response: HTTPClientResponse
        switch http.perform(request) {
        case .success(let answer): response = answer
        case .failure(let failure):
            throw FCMError(code: .authentication, httpStatus: nil,
                           message: "the token endpoint \(tokenURI) did not answer: \(failure)", isRetryable: true)
        }
        let body = try? JSON.parse(response.body)
        guard response.status == 200 else {
            // Google answers {"error": "invalid_grant", "error_description": "..."}.
            let reason = [body?["error"]?.stringValue, body?["error_description"]?.stringValue].compactMap { $0 }.joined(separator: ": ")
            throw FCMError(
                code: .authentication, httpStatus: response.status,
                message: "the token endpoint refused the assertion for \(account.clientEmail): \(reason.isEmpty ? "HTTP \(response.status)" : reason)",
                retryAfter: response.header("Retry-After").flatMap { RetryAfter.parse($0, now: .now()) },
                isRetryable: response.status == 429 || response.status >= 500)
        }
        guard let token = body?["access_token"]?.stringValue, !token.isEmpty else {
            throw FCMError(code: .authentication, httpStatus: 200, message: "the token endpoint's answer has no access_token", isRetryable: true)
        }
        let seconds = body?["expires_in"]?.intValue ?? 3600
        return (token, .seconds(max(1, seconds)))
    }
}

/// application/x-www-form-urlencoded escaping (WHATWG URL, "urlencoded serializer").
enum FormEncoding {
    static func escape(_ text: String) -> String {
        var output: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "*"):
                output.append(byte)
            case UInt8(ascii: " "):
                output.append(UInt8(ascii: "+"))
            default:
                let hex = Array("0123456789ABCDEF".utf8)
                output.append(contentsOf: [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]])
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
