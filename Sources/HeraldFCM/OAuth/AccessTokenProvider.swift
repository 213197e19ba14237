import FCMMessage

/// Where the sender gets its OAuth bearer token.
public protocol AccessTokenProvider: Sendable {
    /// A token valid for a while yet; fetches a new one when none is cached or the cached one is
    /// about to expire. Blocking; safe from any thread.
    func accessToken() throws(FCMError) -> String

    /// Tells the provider that FCM refused `token` (HTTP 401), so the next `accessToken()` fetches
    /// a fresh one, unless another caller has already replaced it.
    func invalidate(_ token: String)
}

/// A fixed token, for tools that obtained one elsewhere (and for tests).
public struct StaticAccessToken: AccessTokenProvider {
    private let token: String
    public init(_ token: String) { self.token = token }
    public func accessToken() throws(FCMError) -> String { token }
    public func invalidate(_ token: String) {}
}
