import HeraldCore
import HeraldJSON

/// A stored campaign: its validated content and the bookkeeping around it.
public struct CampaignRecord: Sendable, Equatable {
    public var id: String
    public var status: String
    public var version: Int
    public var spec: CampaignSpec
    public var author: String?
    /// RFC 3339 timestamps in UTC with microseconds, as PostgreSQL keeps them.
    public var createdAt: String
    public var updatedAt: String

    /// The REST representation: the contract's content plus id, status, version and times.
    public var json: JSON {
        guard case .object(let content) = spec.toJSON() else { return spec.toJSON() }
        var object: JSONObject = ["id": .string(id), "status": .string(status), "version": .number(Double(version))]
        for (key, value) in content { object[key] = value }
        if let author { object["author"] = .string(author) }
        object["created_at"] = .string(createdAt)
        object["updated_at"] = .string(updatedAt)
        return .object(object)
    }

    /// The strong entity tag of this version.
    public var etag: String { "\"\(version)\"" }

    /// Statuses in which the content may still change (sending has not started).
    public var isEditable: Bool { status == "draft" || status == "scheduled" }
}
