/// A webhook event's id (its receivers' `Herald-Webhook-Id`, the same for every endpoint that
/// gets it): a UUID in canonical lowercase text.
public struct WebhookEventID: UUIDIdentifier {
    public let description: String

    public init?(_ text: some StringProtocol) {
        guard let canonical = UUIDText.canonical(text) else { return nil }
        description = canonical
    }
}
