import HeraldCrypto
import HeraldCore

/// A user's id: a UUID in canonical lowercase text.
public struct UserID: UUIDIdentifier {
    public let description: String

    public init?(_ text: some StringProtocol) {
        guard let canonical = UUIDText.canonical(text) else { return nil }
        description = canonical
    }
}

/// An API key's id: a UUID in canonical lowercase text.
public struct APIKeyID: UUIDIdentifier {
    public let description: String

    public init?(_ text: some StringProtocol) {
        guard let canonical = UUIDText.canonical(text) else { return nil }
        description = canonical
    }
}

/// A browser session's secret id, as its cookie carries it. Not printable on purpose: whoever
/// holds it is signed in (the database keeps only its SHA-256).
public struct SessionID: Sendable, Hashable {
    /// The cookie's value.
    public let cookieValue: String

    /// A cookie's value that may name a session: not empty, and shorter than any header an
    /// attacker would send to make the lookup costly (ids are 43 characters).
    public init?(cookie: String) {
        guard !cookie.isEmpty, cookie.utf8.count < 128 else { return nil }
        cookieValue = cookie
    }

    /// A new random id (256 bits).
    static func random() -> SessionID { SessionID(cookie: SecureRandom.token())! }
}
