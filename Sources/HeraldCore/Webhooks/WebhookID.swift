/// A webhook's id: a UUID in canonical lowercase text.
public struct WebhookID: UUIDIdentifier {
    public let description: String

    public init?(_ text: some StringProtocol) {
        guard let canonical = UUIDText.canonical(text) else { return nil }
        description = canonical
    }
}
