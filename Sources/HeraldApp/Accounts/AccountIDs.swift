import HeraldCore

/// A user's id: a UUID in canonical lowercase text.
public struct UserID: UUIDIdentifier {
    public let description: String

    public init?(_ text: some StringProtocol) {
        guard UUIDText.isUUID(text) else { return nil }
        description = text.lowercased()
    }
}

/// An API key's id: a UUID in canonical lowercase text.
public struct APIKeyID: UUIDIdentifier {
    public let description: String

    public init?(_ text: some StringProtocol) {
        guard UUIDText.isUUID(text) else { return nil }
        description = text.lowercased()
    }
}
