import Foundation
import HeraldJSON
import HeraldPostgres

/// One line of the audit log.
public struct AuditEntry: Sendable, Equatable {
    public var id: Int64
    public var at: Date
    public var actor: String
    public var userID: UserID?
    public var apiKeyID: APIKeyID?
    public var action: String
    public var object: AuditObject?
    public var address: String
    public var details: JSON
}

/// What the audit log records. Attempts refused while an account is locked are logged, not
/// audited, so that an attack cannot fill the table.
enum AuditAction: String, Sendable, CaseIterable {
    case campaignCreated = "campaign.created"
    case campaignUpdated = "campaign.updated"
    case campaignDeleted = "campaign.deleted"
    case campaignScheduled = "campaign.scheduled"
    case campaignPublished = "campaign.published"
    case campaignCancelled = "campaign.cancelled"
    case campaignPaused = "campaign.paused"
    case campaignResumed = "campaign.resumed"
    case campaignSubmitted = "campaign.submitted_for_approval"
    case campaignApproved = "campaign.approved"
    case campaignRejected = "campaign.rejected"
    /// An edit after approval: the scheduled campaign's runs wait for the new version's approval.
    case campaignRunsHeld = "campaign.runs_held_for_approval"
    case campaignWinnerSent = "campaign.winner_sent"
    case campaignWinnerDecided = "campaign.winner_decided"
    case campaignTestSent = "campaign.test_sent"
    case journeyCreated = "journey.created"
    case journeyUpdated = "journey.updated"
    case journeyPublished = "journey.published"
    case journeyPaused = "journey.paused"
    case journeyResumed = "journey.resumed"
    case journeyStopped = "journey.stopped"
    case journeyDeleted = "journey.deleted"
    /// A device an admin listed for test messages (with approvals on, the only ones they reach).
    case testDeviceAdded = "test_device.added"
    case testDeviceRemoved = "test_device.removed"
    case segmentSaved = "segment.saved"
    case segmentDeleted = "segment.deleted"
    /// A device moved from its registration token to its Firebase installation ID.
    case deviceMovedToFID = "device.moved_to_fid"
    case topicSubscribed = "topic.subscribed"
    case timeZoneTopicsAssigned = "time_zone_topics.assigned"
    case userCreated = "user.created"
    case userUpdated = "user.updated"
    case apiKeyCreated = "api_key.created"
    case apiKeyRevoked = "api_key.revoked"
    case signInSucceeded = "sign_in.succeeded"
    case signInFailed = "sign_in.failed"
    case signOut = "sign_out"
    /// A one-call send (`POST /api/v1/sends`).
    case sendMade = "send.made"
    case webhookCreated = "webhook.created"
    case webhookDeleted = "webhook.deleted"
    case webhookRedelivered = "webhook.redelivered"
    case frequencyCapsChanged = "frequency_caps.changed"
    case controlGroupChanged = "control_group.changed"
}

/// The audit log: who did what to which object, when and from where. Append-only; each entry is
/// written on the connection of the change it records, so both commit together or neither does.
struct AuditLog: Sendable {
    init() {}

    func record(_ action: AuditAction, by actor: Actor, object: AuditObject? = nil,
                       details: JSONObject = [:], on connection: PostgresConnection) throws {
        _ = try connection.execute("""
            INSERT INTO audit_log (user_id, api_key_id, actor, action, object_type, object_id, address, details)
            VALUES (\(actor.userID)::uuid, \(actor.apiKeyID)::uuid, \(actor.name), \(action.rawValue), \(object?.type), \(object?.text),
                    \(actor.address), \(JSON.object(details).serializedString())::jsonb)
            """)
    }

    /// Newest first, `limit` entries with ids below `before` (the cursor), and the next cursor.
    func list(before: Int64?, limit: Int, on connection: PostgresConnection) throws -> (entries: [AuditEntry], next: Int64?) {
        let rows = try connection.query("""
            SELECT id, at, actor, user_id::text, api_key_id::text,
                   action, object_type, object_id, address, details::text
            FROM audit_log WHERE id < \(before ?? Int64.max) ORDER BY id DESC LIMIT \(limit + 1)
            """)
        var entries = try rows.map { row in
            let (id, at, actor, userID, apiKeyID, action, objectType, objectID, address, details) =
                try row.decode((Int64, Date, String, UserID?, APIKeyID?, String, String?, String?, String, String).self, columns: "id", "at", "actor", "user_id", "api_key_id", "action", "object_type", "object_id", "address", "details")
            return AuditEntry(id: id, at: at, actor: actor, userID: userID, apiKeyID: apiKeyID, action: action,
                              object: objectType.map { AuditObject(type: $0, text: objectID ?? "") }, address: address,
                              details: (try? JSON.parse(details)) ?? .object([:]))
        }
        var next: Int64?
        if entries.count > limit {
            entries.removeLast()
            next = entries.last?.id
        }
        return (entries, next)
    }
}
