import HeraldCrypto
import HeraldJSON
import HeraldPostgres

/// An API key as lists show it: never the key itself, only its first characters.
public struct APIKeyRecord: Sendable, Equatable {
    public var id: String
    public var name: String
    public var prefix: String
    public var role: Role
    public var scope: APIKeyScope
    public var createdBy: String?
    public var createdAt: String
    public var lastUsedAt: String?
    public var revokedAt: String?

    public var json: JSON {
        ["id": .string(id), "name": .string(name), "prefix": .string(prefix), "role": .string(role.rawValue),
         "scope": .string(scope.rawValue), "created_by": createdBy.map { .string($0) } ?? .null,
         "created_at": .string(createdAt), "last_used_at": lastUsedAt.map { .string($0) } ?? .null,
         "revoked_at": revokedAt.map { .string($0) } ?? .null]
    }
}

/// The SQL of API keys. A key is `hk_` and 43 base64url characters (256 random bits); the table
/// holds its SHA-256 and its first 11 characters.
public struct APIKeyStore: Sendable {
    public init() {}

    static let keyPrefix = "hk_"
    static let visiblePrefixLength = 11

    static let columns: PostgresQuery = """
        id::text, name, prefix, role, scope, created_by, \(utc: "created_at"), \(utc: "last_used_at"), \(utc: "revoked_at")
        """

    /// Creates a key and returns it with its record; the key is never shown again.
    public func create(name: String, role: Role, scope: APIKeyScope, createdBy: String?,
                       on connection: PostgresConnection) throws -> (key: String, record: APIKeyRecord) {
        let key = Self.keyPrefix + SecureRandom.token()
        let prefix = String(key.prefix(Self.visiblePrefixLength))
        let rows = try connection.query("""
            INSERT INTO api_keys (name, prefix, key_sha256, role, scope, created_by)
            VALUES (\(name), \(prefix), \(SHA256.hex(key)), \(role.rawValue), \(scope.rawValue), \(createdBy))
            RETURNING \(fragment: Self.columns)
            """)
        return (key, try Self.records(rows)[0])
    }

    public func list(on connection: PostgresConnection) throws -> [APIKeyRecord] {
        try Self.records(connection.query("SELECT \(fragment: Self.columns) FROM api_keys ORDER BY created_at DESC, id"))
    }

    /// Revokes a key at once; nil when there is no such key.
    public func revoke(id: String, on connection: PostgresConnection) throws -> APIKeyRecord? {
        guard CampaignStore.isUUID(id) else { return nil }
        let rows = try connection.query("""
            UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = \(id)::uuid
            RETURNING \(fragment: Self.columns)
            """)
        return try Self.records(rows).first
    }

    /// Who a presented key is, if it is live; notes its use at most once a minute.
    func viewer(key: String, on connection: PostgresConnection) throws -> Viewer? {
        guard key.hasPrefix(Self.keyPrefix), key.utf8.count < 128 else { return nil }
        let rows = try connection.query("""
            SELECT id::text, name, role, scope, last_used_at IS NULL OR last_used_at < now() - interval '1 minute'
            FROM api_keys WHERE key_sha256 = \(SHA256.hex(key)) AND revoked_at IS NULL
            """)
        guard let row = rows.first else { return nil }
        let id = try row.decode(String.self, at: 0)
        if try row.decode(Bool.self, at: 4) {
            _ = try connection.execute("UPDATE api_keys SET last_used_at = now() WHERE id = \(id)::uuid")
        }
        return Viewer(apiKeyID: id, email: "api-key:" + (try row.decode(String.self, at: 1)),
                      role: Role(rawValue: try row.decode(String.self, at: 2)) ?? .viewer,
                      scope: APIKeyScope(rawValue: try row.decode(String.self, at: 3)) ?? .events)
    }

    static func records(_ rows: PostgresRows) throws -> [APIKeyRecord] {
        try rows.map { row in
            APIKeyRecord(id: try row.decode(String.self, at: 0), name: try row.decode(String.self, at: 1),
                         prefix: try row.decode(String.self, at: 2),
                         role: try row.decode(Role.self, at: 3),
                         scope: try row.decode(APIKeyScope.self, at: 4),
                         createdBy: try row.decode(String?.self, at: 5), createdAt: try row.decode(String.self, at: 6),
                         lastUsedAt: try row.decode(String?.self, at: 7), revokedAt: try row.decode(String?.self, at: 8))
        }
    }
}
