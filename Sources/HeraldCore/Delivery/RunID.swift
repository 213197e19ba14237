/// A run's id: a UUID in canonical lowercase text, as `CampaignID` is a campaign's.
public struct RunID: UUIDIdentifier {
    public let description: String

    public init?(_ text: some StringProtocol) {
        guard let canonical = UUIDText.canonical(text) else { return nil }
        description = canonical
    }
}
