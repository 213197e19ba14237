import Foundation
import HeraldJSON
import HeraldPostgres

/// Managing users and API keys, with the rules and the audit entries in one place: the REST API,
/// the admin pages and the command line all go through here. Each change is one transaction with
/// its audit entry; passwords are hashed before a connection is taken.
public struct AccountService: Sendable {
    let database: Database
    let users = UserStore()
    let keys = APIKeyStore()
    let audit = AuditLog()
    /// This process's credential cache, told at once of what changes here (other instances hear
    /// it from the database's NOTIFY).
    let credentials: CredentialCache?

    public static let minimumPasswordLength = 12
    static let maximumKeyNameLength = 100

    public init(database: Database, credentials: CredentialCache? = nil) {
        self.database = database
        self.credentials = credentials
    }

    /// Creates a user.
    public func createUser(email: String, role: Role, password: String, by actor: Actor) throws -> UserRecord {
        // Spaces and tabs around an address are a copy-paste's; the OpenAPI document's pattern says so.
        let email = email.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
        try Self.checkEmail(email)
        try Self.checkPassword(password)
        let hash = PasswordHash.make(password)
        do {
            return try database.transaction { connection in
                let user = try users.create(email: email, role: role, passwordHash: hash, on: connection)
                try audit.record(.userCreated, by: actor, object: .user(user.id),
                                 details: ["email": .string(user.email), "role": .string(role.rawValue)], on: connection)
                return user
            }
        } catch let error as PostgresError where error.code == .uniqueViolation {
            throw AppError.conflict(code: "email_taken", title: "E-mail already in use", detail: "A user with the e-mail \(email) already exists.")
        }
    }

    /// Changes a user's role, disables or enables them, or sets a new password (which signs them out).
    public func updateUser(id: UserID, role: Role?, disabled: Bool?, password: String?, by actor: Actor) throws -> UserRecord {
        if let password { try Self.checkPassword(password) }
        if actor.userID == id, (role.map { $0 < .admin } ?? false) || disabled == true {
            throw AppError.conflict(code: "cannot_demote_self", title: "Not on yourself",
                                    detail: "You cannot demote or disable your own account; ask another admin.")
        }
        let hash = password.map { PasswordHash.make($0) }
        let updated = try database.transaction { connection in
            guard let user = try users.update(id: id, role: role, disabled: disabled, passwordHash: hash, on: connection) else {
                throw AppError.notFound(.user("\(id)"))
            }
            var details: JSONObject = [:]
            if let role { details["role"] = .string(role.rawValue) }
            if let disabled { details["disabled"] = .bool(disabled) }
            if password != nil { details["password_changed"] = true }
            try audit.record(.userUpdated, by: actor, object: .user(id), details: details, on: connection)
            return user
        }
        credentials?.forget("user:\(id)")
        return updated
    }

    /// Sets the language a user reads the pages in (one of `languages`), as the user themself chose
    /// it: a preference, not an account change, so it has no audit entry.
    public func setLanguage(userID: UserID, language: String, languages: [String]) throws {
        guard languages.contains(language) else {
            throw AppError.invalidField("language", "must be one of \(languages.joined(separator: ", ")), found \"\(language)\"")
        }
        let found = try database.transaction { try users.setLanguage(id: userID, language: language, on: $0) }
        guard found else { throw AppError.notFound(.user("\(userID)")) }
        credentials?.forget("user:\(userID)")
    }

    /// Creates an API key; the returned key is shown once and never again.
    /// `inlineSends`: with approvals on, the key may send inline transactional one-call messages
    /// (an exemption from the second person's approval, audited with the key).
    public func createKey(name: String, role: Role, scope: APIKeyScope, inlineSends: Bool = false,
                          by actor: Actor) throws -> (key: String, record: APIKeyRecord) {
        // Characters are counted as JSON Schema counts them (code points), before trimming, so
        // the OpenAPI document's maxLength says exactly what is accepted.
        let written = name
        let name = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty, written.unicodeScalars.count <= Self.maximumKeyNameLength else {
            throw AppError.invalidField("name", "Give the key a name of 1 to \(Self.maximumKeyNameLength) characters, saying who or what uses it.")
        }
        return try database.transaction { connection in
            let created = try keys.create(name: name, role: role, scope: scope, inlineSends: inlineSends, createdBy: actor.name, on: connection)
            try audit.record(.apiKeyCreated, by: actor, object: .apiKey(created.record.id),
                             details: ["name": .string(name), "role": .string(role.rawValue), "scope": .string(scope.rawValue),
                                       "prefix": .string(created.record.prefix), "inline_sends": .bool(inlineSends)], on: connection)
            return created
        }
    }

    /// Revokes a key; it stops working at once.
    public func revokeKey(id: APIKeyID, by actor: Actor) throws -> APIKeyRecord {
        let revoked = try database.transaction { connection in
            guard let key = try keys.revoke(id: id, on: connection) else { throw AppError.notFound(.apiKey("\(id)")) }
            try audit.record(.apiKeyRevoked, by: actor, object: .apiKey(id),
                             details: ["name": .string(key.name), "prefix": .string(key.prefix)], on: connection)
            return key
        }
        credentials?.forget("keyid:\(id)")
        return revoked
    }

    public func listUsers() throws -> [UserRecord] { try database.read { try users.list(on: $0) } }
    public func listKeys() throws -> [APIKeyRecord] { try database.read { try keys.list(on: $0) } }

    /// Newest first, `limit` entries with ids below `before` (the cursor), and the next cursor.
    public func auditEntries(before: Int64?, limit: Int) throws -> (entries: [AuditEntry], next: Int64?) {
        try database.read { try audit.list(before: before, limit: limit, on: $0) }
    }

    /// One "@" after something, a dot after it, no white space: read in code points, as the
    /// OpenAPI document's pattern reads it (a combining mark after "@" leaves it an "@").
    static func checkEmail(_ email: String) throws(AppError) {
        let scalars = Array(email.unicodeScalars)
        let ats = scalars.indices.filter { scalars[$0] == "@" }
        guard ats.count == 1, let at = ats.first, at > 0, scalars[(at + 1)...].contains("."), scalars.count <= 320,
              // Unicode white space, and the byte-order mark that JavaScript's \s counts too.
              !scalars.contains(where: { $0.properties.isWhitespace || $0 == "\u{FEFF}" }) else {
            throw .invalidField("email", "Enter an e-mail address such as ana@example.com.")
        }
    }

    static func checkPassword(_ password: String) throws(AppError) {
        // Code points, as the OpenAPI document's minLength and maxLength count them.
        guard (minimumPasswordLength...1024).contains(password.unicodeScalars.count) else {
            throw .invalidField("password", "A password needs at least \(minimumPasswordLength) characters.")
        }
    }
}

