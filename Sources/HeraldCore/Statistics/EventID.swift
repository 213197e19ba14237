/// An app event's own id, as the app gave it (1 to 128 characters): the same id sent twice is
/// one event.
public struct EventID: Sendable, Hashable, CustomStringConvertible {
    public static let maximumCharacters = 128
    public let description: String

    public init?(_ text: String) {
        // Counted in code points, as the OpenAPI document's maxLength counts them.
        guard !text.isEmpty, text.unicodeScalars.count <= Self.maximumCharacters else { return nil }
        description = text
    }
}
