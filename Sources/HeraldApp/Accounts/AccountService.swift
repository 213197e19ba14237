import HeraldHTTP
import HeraldJSON
import HeraldPostgres

/// Managing users and API keys, with the rules and the audit entries in one place: the REST API,
/// the admin pages and the command line all go through here. Failures are `Problem`s whose
/// detail a page or a terminal can show as is.
public struct AccountService: Sendable {
    let pool: PostgresPool
    let users = UserStore()
    let keys = APIKeyStore()
    let audit = AuditLog()

    public static let minimumPasswordLength = 12

    public init(pool: PostgresPool) { self.pool = pool }

    /// Creates a user. `by` is who does it (nil on the command line, recorded as `actor`).
    public func createUser(email: String, role: Role, password: String, by viewer: Viewer?, actor: String? = nil,
                           request: HTTPRequest? = nil) throws -> UserRecord {
        let email = email.trimmingSpaces
        try Self.checkEmail(email)
        try Self.checkPassword(password)
        do {
            return try pool.withConnection { connection in
                let user = try users.create(email: email, role: role, password: password, on: connection)
                try audit.record("user.created", by: viewer, actor: actor, object: ("user", user.id), request: request,
                                 details: ["email": .string(user.email), "role": .string(role.rawValue)], on: connection)
                return user
            }
        } catch let error as PostgresError where error.code == .uniqueViolation {
            throw Problem(status: 409, code: "email_taken", title: "E-mail already in use",
                          detail: "A user with the e-mail \(email) already exists.")
        }
    }

    /// Changes a user's role, disables or enables them, or sets a new password (which signs them out).
    public func updateUser(id: String, role: Role?, disabled: Bool?, password: String?, by viewer: Viewer?,
                           actor: String? = nil, request: HTTPRequest? = nil) throws -> UserRecord {
        if let password { try Self.checkPassword(password) }
        if viewer?.userID == id, (role.map { $0 < .admin } ?? false) || disabled == true {
            throw Problem(status: 409, code: "cannot_demote_self", title: "Not on yourself",
                          detail: "You cannot demote or disable your own account; ask another admin.")
        }
        return try pool.withConnection { connection in
            guard let user = try users.update(id: id, role: role, disabled: disabled, password: password, on: connection) else {
                throw Problem.notFound("User \(id)")
            }
            var details: JSONObject = [:]
            if let role { details["role"] = .string(role.rawValue) }
            if let disabled { details["disabled"] = .bool(disabled) }
            if password != nil { details["password_changed"] = true }
            try audit.record("user.updated", by: viewer, actor: actor, object: ("user", id), request: request,
                             details: details, on: connection)
            return user
        }
    }

    /// Creates an API key; the returned key is shown once and never again.
    public func createKey(name: String, role: Role, scope: APIKeyScope, by viewer: Viewer?, actor: String? = nil,
                          request: HTTPRequest? = nil) throws -> (key: String, record: APIKeyRecord) {
        let name = name.trimmingSpaces
        guard !name.isEmpty, name.utf8.count <= 100 else {
            throw Self.invalid("name", "Give the key a name of 1 to 100 characters, saying who or what uses it.")
        }
        return try pool.withConnection { connection in
            let created = try keys.create(name: name, role: role, scope: scope, createdBy: viewer?.email ?? actor, on: connection)
            try audit.record("api_key.created", by: viewer, actor: actor, object: ("api_key", created.record.id), request: request,
                             details: ["name": .string(name), "role": .string(role.rawValue), "scope": .string(scope.rawValue),
                                       "prefix": .string(created.record.prefix)], on: connection)
            return created
        }
    }

    /// Revokes a key; it stops working at once.
    public func revokeKey(id: String, by viewer: Viewer?, actor: String? = nil, request: HTTPRequest? = nil) throws -> APIKeyRecord {
        try pool.withConnection { connection in
            guard let key = try keys.revoke(id: id, on: connection) else { throw Problem.notFound("API key \(id)") }
            try audit.record("api_key.revoked", by: viewer, actor: actor, object: ("api_key", id), request: request,
                             details: ["name": .string(key.name), "prefix": .string(key.prefix)], on: connection)
            return key
        }
    }

    public func listUsers() throws -> [UserRecord] { try pool.withConnection { try users.list(on: $0) } }
    public func listKeys() throws -> [APIKeyRecord] { try pool.withConnection { try keys.list(on: $0) } }

    static func checkEmail(_ email: String) throws(Problem) {
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), email.utf8.count <= 320,
              !email.contains(where: { $0.isWhitespace }) else {
            throw invalid("email", "Enter an e-mail address such as ana@example.com.")
        }
    }

    static func checkPassword(_ password: String) throws(Problem) {
        guard password.count >= minimumPasswordLength, password.utf8.count <= 1024 else {
            throw invalid("password", "A password needs at least \(minimumPasswordLength) characters.")
        }
    }

    static func invalid(_ field: String, _ message: String) -> Problem {
        Problem(status: 422, code: "validation_failed", title: "The request is not valid", detail: message,
                extensions: ["errors": [["path": .string(field), "code": "invalid_value", "message": .string(message)]]])
    }
}
