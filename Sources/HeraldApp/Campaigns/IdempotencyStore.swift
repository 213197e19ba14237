import HeraldCrypto
import HeraldJSON
import HeraldPostgres

/// Remembers the first answer to a create made with an `Idempotency-Key`, so a client that
/// retries after a lost response gets that answer instead of a second campaign.
struct IdempotencyStore: Sendable {
    struct Remembered: Sendable, Equatable {
        var requestSHA256: String
        var answer: IdempotentAnswer

        /// Whether `body` is the request this answer was first given to: the same JSON value, however
        /// indented and in whatever member order (or the same bytes, as answers remembered before
        /// Herald compared values were hashed, until they expire).
        func isSameRequest(_ body: [UInt8]) -> Bool {
            requestSHA256 == IdempotencyStore.fingerprint(body) || requestSHA256 == SHA256.hex(body)
        }
    }

    /// What a request is remembered by: the SHA-256 of its body's canonical JSON (the bytes'
    /// own, for a body that is not JSON), so that a retry re-encoded by another client library is
    /// still the same request.
    static func fingerprint(_ body: [UInt8]) -> String {
        SHA256.hex((try? JSON.parse(body))?.canonicalSerialized() ?? body)
    }

    func find(scope: String, key: String, on connection: PostgresConnection) throws -> Remembered? {
        let rows = try connection.query("""
            SELECT request_sha256, status, response::text FROM idempotency_keys WHERE scope = \(scope) AND key = \(key)
            """)
        return try rows.map { row in
            let (hash, status, response) = try row.decode((String, Int, String).self, columns: "request_sha256", "status", "response")
            return Remembered(requestSHA256: hash, answer: IdempotentAnswer(status: status, body: try JSON.parse(response)))
        }.first
    }

    /// Forgets the answers older than `hours`: a retry that late is a new request. Returns how many.
    func expire(olderThanHours hours: Int, on connection: PostgresConnection) throws -> Int {
        try connection.execute("DELETE FROM idempotency_keys WHERE created_at < now() - make_interval(hours => \(hours)::integer)")
    }

    /// Records the answer; throws the unique violation when another request recorded the key first.
    func remember(scope: String, key: String, requestSHA256: String, answer: IdempotentAnswer, on connection: PostgresConnection) throws {
        _ = try connection.execute("""
            INSERT INTO idempotency_keys (scope, key, request_sha256, status, response)
            VALUES (\(scope), \(key), \(requestSHA256), \(answer.status), \(answer.body.serializedString())::jsonb)
            """)
    }
}

/// The first answer to a create made with an `Idempotency-Key`, as the face that answered made it
/// (its status and body): the application keeps it, it does not write it.
public struct IdempotentAnswer: Sendable, Equatable {
    public var status: Int
    public var body: JSON

    public init(status: Int, body: JSON) {
        self.status = status
        self.body = body
    }
}
