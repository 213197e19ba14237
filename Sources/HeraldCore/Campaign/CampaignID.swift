/// A campaign's id: a UUID in canonical lowercase text. Made only from text that is a UUID, so
/// a path segment that names no campaign is refused where it is read, and no store has to guard
/// its `::uuid` casts again.
public struct CampaignID: UUIDIdentifier {
    public let description: String

    public init?(_ text: some StringProtocol) {
        guard let canonical = UUIDText.canonical(text) else { return nil }
        description = canonical
    }
}

/// An id that is a UUID's text (a campaign's, a run's): stores bind and read them alike.
public protocol UUIDIdentifier: Sendable, Hashable, CustomStringConvertible {
    init?(_ text: some StringProtocol)
}

/// The 8-4-4-4-12 hex shape of a UUID's text.
public enum UUIDText {
    public static func isUUID(_ text: some StringProtocol) -> Bool {
        var text = String(text)
        return text.withUTF8 { isUUID($0) }
    }

    /// The text in canonical lowercase when it is a UUID's, else nil. Every id read from a path or
    /// a row is checked this way; read as a String's contiguous bytes, not through a byte array,
    /// a list of dash positions per byte and Unicode lowercasing.
    public static func canonical(_ text: some StringProtocol) -> String? {
        var text = String(text)
        return text.withUTF8 { bytes in
            guard isUUID(bytes) else { return nil }
            return String(unsafeUninitializedCapacity: bytes.count) { buffer in
                for offset in 0..<bytes.count {
                    let byte = bytes[offset]
                    buffer[offset] = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "F") ? byte | 0x20 : byte
                }
                return bytes.count
            }
        }
    }

    private static func isUUID(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count == 36 else { return false }
        for offset in 0..<36 {
            let byte = bytes[offset]
            if offset == 8 || offset == 13 || offset == 18 || offset == 23 {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                guard (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x66) else { return false }
            }
        }
        return true
    }
}
