import HeraldApp
import HeraldJSON

extension UserRecord {
    /// The users API's representation.
    var json: JSON {
        ["id": .string(id.description), "email": .string(email), "role": .string(role.rawValue),
         "disabled": .bool(disabled), "created_at": .time(createdAt)]
    }
}

extension APIKeyRecord {
    /// The API keys API's representation.
    var json: JSON {
        ["id": .string(id.description), "name": .string(name), "prefix": .string(prefix), "role": .string(role.rawValue),
         "scope": .string(scope.rawValue), "created_by": createdBy.map { .string($0) } ?? .null,
         "created_at": .time(createdAt), "last_used_at": lastUsedAt.map(JSON.time) ?? .null,
         "revoked_at": revokedAt.map(JSON.time) ?? .null, "inline_sends": .bool(inlineSends)]
    }
}

extension AuditEntry {
    /// The audit log API's representation.
    var json: JSON {
        ["id": .number(Double(id)), "at": .time(at), "actor": .string(actor),
         "user_id": userID.map { .string($0.description) } ?? .null, "api_key_id": apiKeyID.map { .string($0.description) } ?? .null,
         "action": .string(action), "object_type": object.map { .string($0.type) } ?? .null,
         "object_id": object.map { .string($0.text) } ?? .null, "address": .string(address), "details": details]
    }
}
