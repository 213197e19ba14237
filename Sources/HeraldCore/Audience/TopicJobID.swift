/// A segment's topic subscription job's id: a UUID in canonical lowercase text, as `SegmentID`.
public struct TopicJobID: UUIDIdentifier {
    public let description: String

    public init?(_ text: some StringProtocol) {
        guard let canonical = UUIDText.canonical(text) else { return nil }
        description = canonical
    }
}
