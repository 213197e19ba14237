import FCMMessage
import Foundation
import HeraldCrypto
import HeraldCore
import HeraldJSON
import HeraldPostgres

/// An API key as lists show it: never the key itself, only its first characters.
public struct APIKeyRecord: Sendable, Equatable {
    public var id: APIKeyID
    public var name: String
    public var prefix: String
    public var role: Role
    public var scope: APIKeyScope
    public var createdBy: String?
    public var createdAt: Date
    public var lastUsedAt: Date?
    public var revokedAt: Date?
    /// With approvals on, whether the key may send inline transactional one-call messages (an
    /// admin's exemption, set when the key is created).
    public var inlineSends = false
}

/// The SQL of API keys. A key is `hk_` and 43 base64url characters (256 random bits); the table
/// holds its SHA-256 and its first 11 characters.
struct APIKeyStore: Sendable {
    public init() {}

    static let keyPrefix = "hk_"
    static let visiblePrefixLength = 11

    static let columns: PostgresQuery = """
        id::text, name, prefix, role, scope, created_by, created_at, last_used_at, revoked_at, inline_sends
        """

    /// Creates a key and returns it with its record; the key is never shown again.
    public func create(name: String, role: Role, scope: APIKeyScope, inlineSends: Bool = false, createdBy: String?,
                       on connection: PostgresConnection) throws -> (key: String, record: APIKeyRecord) {
        let key = Self.keyPrefix + SecureRandom.token()
        let prefix = String(key.prefix(Self.visiblePrefixLength))
        let rows = try connection.query("""
            INSERT INTO api_keys (name, prefix, key_sha256, role, scope, inline_sends, created_by)
            VALUES (\(name), \(prefix), \(SHA256.hex(key)), \(role.rawValue), \(scope.rawValue), \(inlineSends), \(createdBy))
            RETURNING \(fragment: Self.columns)
            """)
        return (key, try Self.records(rows)[0])
    }

    public func list(on connection: PostgresConnection) throws -> [APIKeyRecord] {
        try Self.records(connection.query("SELECT \(fragment: Self.columns) FROM api_keys ORDER BY created_at DESC, id"))
    }

    /// Revokes a key at once; nil when there is no such key.
    public func revoke(id: APIKeyID, on connection: PostgresConnection) throws -> APIKeyRecord? {
        let rows = try connection.query("""
            UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = \(id)::uuid
            RETURNING \(fragment: Self.columns)
            """)
        return try Self.records(rows).first
    }

    /// Whether a live key may send inline transactional one-call messages with approvals on.
    func allowsInlineSends(_ id: APIKeyID, on connection: PostgresConnection) throws -> Bool {
        try connection.query("""
            SELECT inline_sends FROM api_keys WHERE id = \(id)::uuid AND revoked_at IS NULL
            """).first?.decode(Bool.self, column: "inline_sends") ?? false
    }

    /// Who a presented key is, if it is live; notes its use at most once a minute.
    func viewer(key: String, on connection: PostgresConnection) throws -> Viewer? {
        guard key.hasPrefix(Self.keyPrefix), key.utf8.count < 128 else { return nil }
        let rows = try connection.query("""
            SELECT id::text, name, role, scope, last_used_at IS NULL OR last_used_at < now() - interval '1 minute' AS unused_for_a_minute
            FROM api_keys WHERE key_sha256 = \(SHA256.hex(key)) AND revoked_at IS NULL
            """)
        guard let (id, name, role, scope, unusedForAMinute) = try rows.first?.decode((APIKeyID, String, Role, APIKeyScope, Bool).self, columns: "id", "name", "role", "scope", "unused_for_a_minute") else {
            return nil
        }
        if unusedForAMinute {
            _ = try connection.execute("UPDATE api_keys SET last_used_at = now() WHERE id = \(id)::uuid")
        }
        return Viewer(apiKeyID: id, email: "api-key:" + name, role: role, scope: scope)
    }

    static func records(_ rows: PostgresRows) throws -> [APIKeyRecord] {
        try rows.map { row in
            let (id, name, prefix, role, scope, createdBy, createdAt, lastUsedAt, revokedAt, inlineSends) =
                try row.decode((APIKeyID, String, String, Role, APIKeyScope, String?, Date, Date?, Date?, Bool).self, columns: "id", "name", "prefix", "role", "scope", "created_by", "created_at", "last_used_at", "revoked_at", "inline_sends")
            return APIKeyRecord(id: id, name: name, prefix: prefix, role: role, scope: scope, createdBy: createdBy,
                                createdAt: createdAt, lastUsedAt: lastUsedAt, revokedAt: revokedAt, inlineSends: inlineSends)
        }
    }
}
