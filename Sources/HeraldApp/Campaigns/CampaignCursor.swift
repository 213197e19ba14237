import HeraldCrypto
import HeraldCore

/// Where a newest-first listing continues: the last campaign's creation time and id, opaque to
/// clients (base64url), so they cannot depend on its inside.
public struct CampaignCursor: Sendable, Equatable {
    public var createdAt: String
    public var id: CampaignID

    public init(createdAt: String, id: CampaignID) {
        self.createdAt = createdAt
        self.id = id
    }

    /// The opaque form clients pass back as `cursor`.
    public var token: String { Base64URL.encode(Array("\(createdAt)|\(id)".utf8)) }

    /// Reads a token; nil when it was not made by `token`.
    public init?(token: String) {
        guard let bytes = Base64URL.decode(token), let text = String(validating: bytes, as: UTF8.self) else { return nil }
        let parts = text.split(separator: "|", omittingEmptySubsequences: false)
        guard parts.count == 2, let id = CampaignID(parts[1]), Self.isTimestamp(parts[0]) else { return nil }
        createdAt = String(parts[0])
        self.id = id
    }

    /// "2026-11-21T23:59:59.123456Z", the only shape the store writes.
    static func isTimestamp(_ text: Substring) -> Bool {
        let shape = Array("0000-00-00T00:00:00.000000Z".utf8)
        let bytes = Array(text.utf8)
        guard bytes.count == shape.count else { return false }
        return zip(bytes, shape).allSatisfy { byte, expected in
            expected == UInt8(ascii: "0") ? (byte >= 0x30 && byte <= 0x39) : byte == expected
        }
    }
}
