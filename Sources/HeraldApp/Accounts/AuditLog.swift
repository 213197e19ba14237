import HeraldHTTP
import HeraldJSON
import HeraldPostgres

/// One line of the audit log.
public struct AuditEntry: Sendable, Equatable {
    public var id: Int64
    public var at: String
    public var actor: String
    public var userID: String?
    public var apiKeyID: String?
    public var action: String
    public var objectType: String?
    public var objectID: String?
    public var address: String
    public var details: JSON

    var json: JSON {
        ["id": .number(Double(id)), "at": .string(at), "actor": .string(actor),
         "user_id": userID.map { .string($0) } ?? .null, "api_key_id": apiKeyID.map { .string($0) } ?? .null,
         "action": .string(action), "object_type": objectType.map { .string($0) } ?? .null,
         "object_id": objectID.map { .string($0) } ?? .null, "address": .string(address), "details": details]
    }
}

/// The audit log: who did what to which object, when and from where. Append-only.
///
/// Actions: `campaign.created`, `campaign.updated`, `campaign.deleted`, `campaign.scheduled`,
/// `campaign.cancelled`, `user.created`, `user.updated`, `api_key.created`, `api_key.revoked`,
/// `sign_in.succeeded`, `sign_in.failed`, `sign_out`. (Attempts refused while an account is locked are
/// logged, not audited, so that an attack cannot fill the table.)
public struct AuditLog: Sendable {
    public init() {}

    /// Records `action` by `viewer` (or by `actor` when nobody is signed in, e.g. a failed sign-in).
    func record(_ action: String, by viewer: Viewer?, actor: String? = nil, object: (type: String, id: String)? = nil,
                request: HTTPRequest?, details: JSONObject = [:], on connection: PostgresConnection) throws {
        let who = viewer?.email ?? actor ?? "anonymous"
        _ = try connection.execute("""
            INSERT INTO audit_log (user_id, api_key_id, actor, action, object_type, object_id, address, details)
            VALUES (\(viewer?.userID)::uuid, \(viewer?.apiKeyID)::uuid, \(who), \(action), \(object?.type), \(object?.id),
                    \(request?.clientAddress ?? ""), \(JSON.object(details).serializedString())::jsonb)
            """)
    }

    /// Newest first, `limit` entries with ids below `before` (the cursor), and the next cursor.
    func list(before: Int64?, limit: Int, on connection: PostgresConnection) throws -> (entries: [AuditEntry], next: Int64?) {
        let rows = try connection.query("""
            SELECT id, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'), actor, user_id::text, api_key_id::text,
                   action, object_type, object_id, address, details::text
            FROM audit_log WHERE id < \(before ?? Int64.max) ORDER BY id DESC LIMIT \(limit + 1)
            """)
        var entries = try rows.map { row in
            AuditEntry(id: try row.decode(Int64.self, at: 0), at: try row.decode(String.self, at: 1),
                       actor: try row.decode(String.self, at: 2), userID: try row.decode(String?.self, at: 3),
                       apiKeyID: try row.decode(String?.self, at: 4), action: try row.decode(String.self, at: 5),
                       objectType: try row.decode(String?.self, at: 6), objectID: try row.decode(String?.self, at: 7),
                       address: try row.decode(String.self, at: 8),
                       details: (try? JSON.parse(try row.decode(String.self, at: 9))) ?? .object([:]))
        }
        var next: Int64?
        if entries.count > limit {
            entries.removeLast()
            next = entries.last?.id
        }
        return (entries, next)
    }
}

extension AuditLog {
    /// Records `action` on a campaign when a guarded write went through (and nothing when it did not).
    func record(_ action: String, _ outcome: CampaignStore.UpdateOutcome, by viewer: Viewer, request: HTTPRequest,
                on connection: PostgresConnection) throws {
        guard case .updated(let record) = outcome else { return }
        try self.record(action, by: viewer, object: ("campaign", record.id), request: request,
                        details: ["version": .number(Double(record.version)), "status": .string(record.status)], on: connection)
    }
}
