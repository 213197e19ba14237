import HeraldCrypto
import HeraldJSON

/// The signed JWT a service account presents to the token endpoint (RFC 7523 §2.1), as Google's
/// "Using OAuth 2.0 for server to server applications" describes it.
public enum JWTAssertion {
    /// The scope FCM's v1 API requires.
    public static let firebaseMessagingScope = "https://www.googleapis.com/auth/firebase.messaging"

    /// The compact JWS `header.claims.signature`, valid from `issuedAt` for `lifetime` seconds
    /// (Google accepts at most one hour). The audience is the token endpoint the assertion is
    /// presented to: the key's `token_uri` unless configured otherwise.
    public static func make(
        for account: ServiceAccount,
        audience: String? = nil,
        issuedAt: Int,
        lifetime: Int = 3600,
        scope: String = firebaseMessagingScope
    ) throws(OpenSSLError) -> String {
        let header: JSON = ["alg": "RS256", "typ": "JWT", "kid": .string(account.privateKeyID)]
        let claims: JSON = [
            "iss": .string(account.clientEmail),
            "scope": .string(scope),
            "aud": .string(audience ?? account.tokenURI),
            "iat": .number(Double(issuedAt)),
            "exp": .number(Double(issuedAt + min(lifetime, 3600))),
        ]
        let signingInput = Base64URL.encode(header.serialized()) + "." + Base64URL.encode(claims.serialized())
        let signature = try account.privateKey.signSHA256(signingInput.utf8)
        return signingInput + "." + Base64URL.encode(signature)
    }
}
