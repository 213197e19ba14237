import FCMMessage
import Foundation
import HeraldCrypto
import HeraldCore

/// Where a newest-first listing continues: the last campaign's creation time and id, and the
/// filters of the listing it continues, opaque to clients (base64url), so they cannot depend on its
/// inside and a `next_cursor` alone continues the same filtered listing.
public struct CampaignCursor: Sendable, Equatable {
    /// The last campaign's creation time, exactly as PostgreSQL keeps it: through a `Date` (a
    /// `Double` of seconds) it could come back a microsecond later, and the next page then began
    /// with the campaign that ended this one.
    public var createdMicroseconds: Int64
    public var id: CampaignID
    public var filter: CampaignFilter

    public init(createdMicroseconds: Int64, id: CampaignID, filter: CampaignFilter = CampaignFilter()) {
        self.createdMicroseconds = createdMicroseconds
        self.id = id
        self.filter = filter
    }

    /// The opaque form clients pass back as `cursor`.
    public var token: String {
        let statuses = filter.statuses.map(\.rawValue).sorted().joined(separator: ",")
        // The name search goes last: it is the one part that may itself hold "|".
        let created = RFC3339.utc(microsecondsSince1970: createdMicroseconds)
        return Base64URL.encode(Array("\(created)|\(id)|\(statuses)|\(filter.nameContains)".utf8))
    }

    /// Reads a token; nil when it was not made by `token`.
    public init?(token: String) {
        guard let bytes = Base64URL.decode(token), let text = String(validating: bytes, as: UTF8.self) else { return nil }
        let parts = text.split(separator: "|", maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 4, let id = CampaignID(parts[1]), Self.isTimestamp(parts[0]),
              let created = RFC3339.microsecondsSince1970(String(parts[0])) else { return nil }
        createdMicroseconds = created
        self.id = id
        filter = CampaignFilter()
        if parts.count == 4 {
            for name in parts[2].split(separator: ",") {
                guard let status = CampaignStatus(rawValue: String(name)) else { return nil }
                filter.statuses.insert(status)
            }
            filter.nameContains = String(parts[3])
        }
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

/// Which campaigns a listing shows: any of `statuses` (all when empty) whose name contains
/// `nameContains`, ignoring case (everything when empty).
public struct CampaignFilter: Sendable, Equatable {
    public var statuses: Set<CampaignStatus>
    public var nameContains: String

    public init(statuses: Set<CampaignStatus> = [], nameContains: String = "") {
        self.statuses = statuses
        self.nameContains = nameContains
    }

    public var isEmpty: Bool { statuses.isEmpty && nameContains.isEmpty }

    /// What is wrong with a name search, or nil: PostgreSQL text cannot hold U+0000, and a search
    /// longer than any campaign name finds nothing.
    public static func searchError(_ text: String) -> FieldError? {
        if text.utf8.contains(0) {
            return FieldError(path: "q", code: "nul_character", message: "q contains the NUL character (U+0000), which no campaign name holds")
        }
        if text.count > CampaignLimits.nameCharacters {
            return FieldError(path: "q", code: "too_long", message: "q is at most \(CampaignLimits.nameCharacters) characters (you gave \(text.count))",
                              limit: CampaignLimits.nameCharacters)
        }
        return nil
    }
}
