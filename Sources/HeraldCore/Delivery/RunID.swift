/// A run's id: a UUID in canonical lowercase text, as `CampaignID` is a campaign's.
public struct RunID: UUIDIdentifier {
    public let description: String

    public init?(_ text: some StringProtocol) {
        guard UUIDText.isUUID(text) else { return nil }
        description = text.lowercased()
    }
}
