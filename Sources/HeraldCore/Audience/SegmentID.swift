/// A saved segment's id: a UUID in canonical lowercase text, as `CampaignID`.
public struct SegmentID: UUIDIdentifier {
    public let description: String

    public init?(_ text: some StringProtocol) {
        guard let canonical = UUIDText.canonical(text) else { return nil }
        description = canonical
    }

    /// Stands in for a segment the parser refused, so that the rest of the campaign is still
    /// checked (a refused campaign is never built, so it goes nowhere).
    static let refused = SegmentID("00000000-0000-0000-0000-000000000000")!
}
