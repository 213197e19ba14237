import FCMMessage
import Foundation
import HeraldCore
import HeraldJSON
import HeraldPostgres

/// A user as the admin pages and API show it (never the password hash).
public struct UserRecord: Sendable, Equatable {
    public var id: UserID
    public var email: String
    public var role: Role
    public var disabled: Bool
    public var createdAt: Date
}

/// The SQL of users. E-mails are unique ignoring case.
struct UserStore: Sendable {
    public init() {}

    static let columns: PostgresQuery = "id::text, email, role, disabled, created_at"

    /// Creates a user with a hash made beforehand (`PasswordHash.make`, slow on purpose: never
    /// while holding a connection); a taken e-mail is a `PostgresError` with code `uniqueViolation`.
    public func create(email: String, role: Role, passwordHash hash: String, on connection: PostgresConnection) throws -> UserRecord {
        let rows = try connection.query("""
            INSERT INTO users (email, role, password_hash) VALUES (\(email), \(role), \(hash))
            RETURNING \(fragment: Self.columns)
            """)
        return try Self.records(rows)[0]
    }

    public func list(on connection: PostgresConnection) throws -> [UserRecord] {
        try Self.records(connection.query("SELECT \(fragment: Self.columns) FROM users ORDER BY lower(email)"))
    }

    public func find(id: UserID, on connection: PostgresConnection) throws -> UserRecord? {
        try Self.records(connection.query("SELECT \(fragment: Self.columns) FROM users WHERE id = \(id)::uuid")).first
    }

    /// The user and stored password hash for a sign-in attempt.
    func credentials(email: String, on connection: PostgresConnection) throws -> (user: UserRecord, passwordHash: String)? {
        let rows = try connection.query("""
            SELECT \(fragment: Self.columns), password_hash FROM users WHERE lower(email) = lower(\(email))
            """)
        return try rows.map { row in
            let (id, email, role, disabled, createdAt, hash) = try row.decode((UserID, String, Role, Bool, Date, String).self, columns: "id", "email", "role", "disabled", "created_at", "password_hash")
            return (user: UserRecord(id: id, email: email, role: role, disabled: disabled, createdAt: createdAt), passwordHash: hash)
        }.first
    }

    /// Changes role, disabled flag and/or password; disabling or a new password ends the user's sessions.
    public func update(id: UserID, role: Role?, disabled: Bool?, passwordHash hash: String?, on connection: PostgresConnection) throws -> UserRecord? {
        let rows = try connection.query("""
            UPDATE users SET role = coalesce(\(role), role), disabled = coalesce(\(disabled), disabled),
                password_hash = coalesce(\(hash), password_hash), updated_at = now()
            WHERE id = \(id)::uuid RETURNING \(fragment: Self.columns)
            """)
        if disabled == true || hash != nil {
            _ = try connection.execute("DELETE FROM sessions WHERE user_id = \(id)::uuid")
        }
        return try Self.records(rows).first
    }

    /// Sets the language the user reads the pages in (nil: follow the browser); false when no such user.
    public func setLanguage(id: UserID, language: String?, on connection: PostgresConnection) throws -> Bool {
        try connection.execute("UPDATE users SET language = \(language), updated_at = now() WHERE id = \(id)::uuid") > 0
    }

    static func records(_ rows: PostgresRows) throws -> [UserRecord] {
        try rows.map { row in
            let (id, email, role, disabled, createdAt) = try row.decode((UserID, String, Role, Bool, Date).self, columns: "id", "email", "role", "disabled", "created_at")
            return UserRecord(id: id, email: email, role: role, disabled: disabled, createdAt: createdAt)
        }
    }
}
