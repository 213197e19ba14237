import HeraldSync
import HeraldCrypto
import HeraldFCM
import HeraldJSON

/// Checks a service account's JWT assertion as Google's token endpoint does: an RS256 signature
/// by the trusted key, the issuer, the audience, the FCM scope, and a lifetime of at most an hour
/// that includes now.
struct JWTVerifier {
    let key: RSAPublicKey
    let trustedIssuer: String?
    /// Clock skew allowed on `iat` and `exp`.
    let leeway: Double = 60

    /// Scopes that grant sending, as Google's token endpoint and FCM accept them.
    static let messagingScopes = [JWTAssertion.firebaseMessagingScope, "https://www.googleapis.com/auth/cloud-platform"]
    /// The audience google-auth (and so every official Admin SDK) always signs for, whatever the
    /// key's token_uri: Google's token endpoint accepts it, so the emulator does too.
    static let googleTokenAudience = "https://oauth2.googleapis.com/token"

    /// Nil when the assertion is good, else Google's `error_description` for it.
    func problem(with assertion: String, audiences: [String], now: UnixTime) -> String? {
        let parts = assertion.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(parts[0]), let claimBytes = Base64URL.decode(parts[1]),
              let signature = Base64URL.decode(parts[2]),
              let header = try? JSON.parse(headerBytes), let claims = try? JSON.parse(claimBytes) else {
            return "Invalid JWT: the assertion is not a compact JWS."
        }
        guard header["alg"]?.stringValue == "RS256" else { return "Invalid JWT: the algorithm must be RS256." }
        guard key.verifySHA256(Array("\(parts[0]).\(parts[1])".utf8), signature: signature) else { return "Invalid JWT Signature." }

        guard let issuer = claims["iss"]?.stringValue else { return "Invalid JWT: the iss claim is missing." }
        if let trustedIssuer, issuer != trustedIssuer { return "Invalid JWT: unknown issuer \(issuer)." }
        guard let audience = claims["aud"]?.stringValue, audiences.contains(audience) else {
            return "Invalid JWT: the aud claim must be one of \(audiences.joined(separator: ", "))."
        }
        // firebase-admin asks for cloud-platform, which FCM accepts as well as its own scope.
        let scopes = claims["scope"]?.stringValue?.split(separator: " ") ?? []
        guard scopes.contains(where: { Self.messagingScopes.contains(String($0)) }) else {
            return "Invalid JWT: the scope must include \(Self.messagingScopes.joined(separator: " or "))."
        }
        guard let issuedAt = claims["iat"]?.doubleValue, let expires = claims["exp"]?.doubleValue else {
            return "Invalid JWT: iat and exp are required."
        }
        if issuedAt > now.seconds + leeway { return "Invalid JWT: Token must be a short-lived token and in a reasonable timeframe (iat is in the future)." }
        if expires <= now.seconds - leeway { return "Invalid JWT: Token must be a short-lived token and in a reasonable timeframe (it has expired)." }
        if expires - issuedAt > 3600 { return "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe." }
        return nil
    }
}
