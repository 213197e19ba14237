import HeraldJSON
import HeraldPostgres

/// Remembers the first answer to a create made with an `Idempotency-Key`, so a client that
/// retries after a lost response gets that answer instead of a second campaign.
struct IdempotencyStore: Sendable {
    public struct Remembered: Sendable, Equatable {
        public var requestSHA256: String
        public var status: Int
        public var response: JSON
    }

    public init() {}

    public func find(scope: String, key: String, on connection: PostgresConnection) throws -> Remembered? {
        let rows = try connection.query("""
            SELECT request_sha256, status, response::text FROM idempotency_keys WHERE scope = \(scope) AND key = \(key)
            """)
        return try rows.map { row in
            let (hash, status, response) = try row.decode((String, Int, String).self)
            return Remembered(requestSHA256: hash, status: status, response: try JSON.parse(response))
        }.first
    }

    /// Records the answer; throws the unique violation when another request recorded the key first.
    public func remember(scope: String, key: String, requestSHA256: String, status: Int, response: JSON,
                         on connection: PostgresConnection) throws {
        _ = try connection.execute("""
            INSERT INTO idempotency_keys (scope, key, request_sha256, status, response)
            VALUES (\(scope), \(key), \(requestSHA256), \(status), \(response.serializedString())::jsonb)
            """)
    }
}
