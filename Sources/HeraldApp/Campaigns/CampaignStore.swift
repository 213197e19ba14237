import Foundation
import HeraldCore
import HeraldJSON
import HeraldPostgres

/// The SQL of the campaign aggregate. Values are always bind parameters.
struct CampaignStore: Sendable {
    enum UpdateOutcome: Sendable, Equatable {
        case updated(CampaignRecord)
        case notFound
        case versionMismatch(current: CampaignRecord, expected: Int)
        case notEditable(current: CampaignRecord)
        /// The campaign is scheduled and its new schedule has no occurrence left to wait for.
        case unschedulable(current: CampaignRecord, errors: ValidationErrors)
    }

    enum DeleteOutcome: Sendable, Equatable {
        case deleted
        case notFound
        case versionMismatch(current: CampaignRecord, expected: Int)
        case notADraft(current: CampaignRecord)
    }


    /// The columns `records` decodes, in its order.
    static let columns: PostgresQuery = """
        id::text, name, status, version, content::text, author, created_at, updated_at, updated_by, updated_by_kind, next_run_at,
        approval, approval_comment, approval_decided_by, approved_version, approval_decision
        """

    /// `columns` by name, in order (read on every GET of a campaign: named once here).
    static let columnNames = ["id", "name", "status", "version", "content", "author", "created_at", "updated_at", "updated_by", "updated_by_kind",
                              "next_run_at", "approval", "approval_comment", "approval_decided_by", "approved_version", "approval_decision"]

    public init() {}

    public func insert(_ spec: CampaignSpec, author: String?, by attribution: Attribution, on connection: PostgresConnection) throws -> CampaignRecord {
        let content = spec.toJSON().serializedString()
        let rows = try connection.query("""
            INSERT INTO campaigns (name, content, author, updated_by, updated_by_kind)
            VALUES (\(spec.name), \(content)::jsonb, \(author), \(attribution.name), \(attribution.kind))
            RETURNING \(fragment: Self.columns)
            """)
        return try Self.records(rows)[0]
    }

    public func find(id: CampaignID, on connection: PostgresConnection, forUpdate: Bool = false) throws -> CampaignRecord? {
        let rows = try connection.query(forUpdate
            ? "SELECT \(fragment: Self.columns) FROM campaigns WHERE id = \(id)::uuid FOR UPDATE"
            : "SELECT \(fragment: Self.columns) FROM campaigns WHERE id = \(id)::uuid")
        return try Self.records(rows).first
    }

    /// Replaces the content if `expectedVersion` is still current and sending has not started.
    /// The version check and the write are one statement, so of two racing writers exactly one wins.
    /// A scheduled campaign whose schedule changed is re-armed at its new next occurrence; one
    /// whose new schedule has no occurrence left (a one-off time now past) is refused, unchanged.
    /// Removing the schedule of a scheduled campaign keeps the due time it was armed with.
    public func update(id: CampaignID, expectedVersion: Int, spec: CampaignSpec, by attribution: Attribution, now: Date,
                       on connection: PostgresConnection) throws -> UpdateOutcome {
        let content = spec.toJSON().serializedString()
        let arming = spec.schedule == nil ? nil : Arming.firstRun(of: spec, now: now)
        let nextRun = try? arming?.get()
        let armable = arming == nil || nextRun != nil
        let rows = try connection.query("""
            UPDATE campaigns SET name = \(spec.name), content = \(content)::jsonb, version = version + 1, updated_at = now(),
                updated_by = \(attribution.name), updated_by_kind = \(attribution.kind),
                next_run_at = CASE WHEN status = \(constants: [CampaignStatus.scheduled]) AND \(nextRun)::timestamptz IS NOT NULL
                                   THEN \(nextRun)::timestamptz ELSE next_run_at END
            WHERE id = \(id)::uuid AND version = \(expectedVersion) AND status IN (\(constants: CampaignStatus.editable))
              AND (status = \(constants: [CampaignStatus.draft]) OR \(armable))
            RETURNING \(fragment: Self.columns)
            """)
        return try outcome(of: rows, id: id, expectedVersion: expectedVersion, arming: arming, on: connection)
    }

    /// Explains a guarded write: the updated campaign, or why the guard held.
    func outcome(of rows: PostgresRows, id: CampaignID, expectedVersion: Int, arming: Result<Date, ValidationErrors>? = nil,
                 on connection: PostgresConnection) throws -> UpdateOutcome {
        if let updated = try Self.records(rows).first { return .updated(updated) }
        guard let current = try find(id: id, on: connection) else { return .notFound }
        if current.version != expectedVersion { return .versionMismatch(current: current, expected: expectedVersion) }
        if current.status == .scheduled, case .failure(let errors)? = arming {
            return .unschedulable(current: current, errors: errors)
        }
        return .notEditable(current: current)
    }

    /// Deletes a draft at `expectedVersion`; anything else is explained, not deleted.
    public func delete(id: CampaignID, expectedVersion: Int, on connection: PostgresConnection) throws -> DeleteOutcome {
        let deleted = try connection.execute("""
            DELETE FROM campaigns WHERE id = \(id)::uuid AND version = \(expectedVersion) AND status = \(constants: [CampaignStatus.draft])
            """)
        if deleted == 1 { return .deleted }
        guard let current = try find(id: id, on: connection) else { return .notFound }
        if current.version != expectedVersion { return .versionMismatch(current: current, expected: expectedVersion) }
        return .notADraft(current: current)
    }

    /// Newest first, of `filter`; `cursor` continues after the last campaign of the previous page.
    /// The name search ignores case, and `%` and `_` in it match themselves.
    public func list(_ filter: CampaignFilter, limit: Int, after cursor: CampaignCursor?, on connection: PostgresConnection) throws -> CampaignPage {
        let pattern = filter.nameContains.isEmpty ? nil : "%" + Self.likeEscaped(filter.nameContains) + "%"
        let statuses = filter.statuses.sorted()
        // Times as whole microseconds, both ways: exact, as the order they page by is.
        let rows = try connection.query("""
            SELECT \(fragment: Self.columns), (extract(epoch FROM created_at) * 1000000)::bigint AS created_us FROM campaigns
            WHERE NOT one_call AND journey_id IS NULL AND (cardinality(\(statuses)::text[]) = 0 OR status = ANY(\(statuses)))
              AND (\(pattern)::text IS NULL OR name ILIKE \(pattern))
              AND (\(cursor?.createdMicroseconds)::bigint IS NULL
                   OR (created_at, id) < (timestamptz 'epoch' + \(cursor?.createdMicroseconds)::bigint * interval '1 microsecond', \(cursor?.id)::uuid))
            ORDER BY created_at DESC, id DESC LIMIT \(limit + 1)
            """)
        var campaigns = try Self.records(rows)
        var next: CampaignCursor?
        if campaigns.count > limit {
            campaigns.removeLast()
            let created = try rows[limit - 1].decode(Int64.self, column: "created_us")
            next = campaigns.last.map { CampaignCursor(createdMicroseconds: created, id: $0.id, filter: filter) }
        }
        return CampaignPage(campaigns: campaigns, nextCursor: next)
    }

    /// `text` with LIKE's wildcards and escape character taken literally.
    static func likeEscaped(_ text: String) -> String {
        var result = ""
        for character in text {
            if character == "\\" || character == "%" || character == "_" { result.append("\\") }
            result.append(character)
        }
        return result
    }

    /// Rows of `columns` as records; the content is read as stored, not validated again.
    static func records(_ rows: PostgresRows) throws -> [CampaignRecord] {
        try rows.map { row in
            let (id, name, status, version, content, author, createdAt, updatedAt, updatedBy, updatedByKind, nextRunAt,
                 approval, comment, decidedBy, approvedVersion, decision) =
                try row.decode((CampaignID, String, CampaignStatus, Int, String, String?, Date, Date, String?, Attribution.Kind?, Date?,
                                ApprovalState, String?, String?, Int?, ApprovalState?).self, columns: Self.columnNames)
            var record = CampaignRecord(id: id, name: name, status: status, version: version, content: try JSON.parse(content),
                                        author: author, createdAt: createdAt, updatedAt: updatedAt,
                                        updatedBy: updatedBy.flatMap { name in updatedByKind.map { Attribution(name: name, kind: $0) } },
                                        nextRunAt: nextRunAt)
            record.approval = CampaignApproval(state: approval, comment: comment, decidedBy: decidedBy, approvedVersion: approvedVersion,
                                               decision: decision)
            return record
        }
    }
}

/// One page of the campaign list, and the cursor of the next (nil on the last).
public struct CampaignPage: Sendable, Equatable {
    public var campaigns: [CampaignRecord]
    public var nextCursor: CampaignCursor?
}
