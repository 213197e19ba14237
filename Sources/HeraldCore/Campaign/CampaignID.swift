/// A campaign's id: a UUID in canonical lowercase text. Made only from text that is a UUID, so
/// a path segment that names no campaign is refused where it is read, and no store has to guard
/// its `::uuid` casts again.
public struct CampaignID: UUIDIdentifier {
    public let description: String

    public init?(_ text: some StringProtocol) {
        guard UUIDText.isUUID(text) else { return nil }
        description = text.lowercased()
    }
}

/// An id that is a UUID's text (a campaign's, a run's): stores bind and read them alike.
public protocol UUIDIdentifier: Sendable, Hashable, CustomStringConvertible {
    init?(_ text: some StringProtocol)
}

/// The 8-4-4-4-12 hex shape of a UUID's text.
public enum UUIDText {
    public static func isUUID(_ text: some StringProtocol) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return false }
        for (offset, byte) in bytes.enumerated() {
            if [8, 13, 18, 23].contains(offset) {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                guard (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x66) else { return false }
            }
        }
        return true
    }
}
