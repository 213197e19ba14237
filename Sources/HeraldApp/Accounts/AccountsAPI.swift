import HeraldHTTP
import HeraldJSON
import HeraldPostgres

/// `/api/v1/me`, `/api/v1/users`, `/api/v1/api-keys` and `/api/v1/audit`. All but `me` are for admins.
struct AccountsAPI: Sendable {
    let access: AccessControl
    let service: AccountService
    let audit = AuditLog()

    static let defaultAuditPage = 50
    static let maximumAuditPage = 200

    init(access: AccessControl) {
        self.access = access
        service = AccountService(pool: access.pool)
    }

    func register(on router: inout Router) {
        router.add(.get, "/api/v1/me", access.api(.viewer) { _, viewer in
            APIResponse(status: 200, body: ["email": .string(viewer.email), "role": .string(viewer.role.rawValue),
                                            "user_id": viewer.userID.map { .string($0) } ?? .null,
                                            "api_key_id": viewer.apiKeyID.map { .string($0) } ?? .null])
        })
        router.add(.get, "/api/v1/users", access.api(.admin) { _, _ in
            APIResponse(status: 200, body: ["items": .array(try service.listUsers().map(\.json))])
        })
        router.add(.post, "/api/v1/users", access.api(.admin, createUser))
        router.add(.patch, "/api/v1/users/{id}", access.api(.admin, updateUser))
        router.add(.get, "/api/v1/api-keys", access.api(.admin) { _, _ in
            APIResponse(status: 200, body: ["items": .array(try service.listKeys().map(\.json))])
        })
        router.add(.post, "/api/v1/api-keys", access.api(.admin, createKey))
        router.add(.delete, "/api/v1/api-keys/{id}", access.api(.admin) { request, viewer in
            let key = try service.revokeKey(id: request.parameters["id"] ?? "", by: viewer, request: request)
            return APIResponse(status: 200, body: key.json)
        })
        router.add(.get, "/api/v1/audit", access.api(.admin, listAudit))
    }

    func createUser(_ request: HTTPRequest, _ viewer: Viewer) throws -> APIResponse {
        let body = try request.jsonBody()
        let role = try Self.role(body["role"], required: true) ?? .viewer
        let user = try service.createUser(email: body["email"]?.stringValue ?? "", role: role,
                                          password: body["password"]?.stringValue ?? "", by: viewer, request: request)
        return APIResponse(status: 201, body: user.json, headers: [("Location", "/api/v1/users/\(user.id)")])
    }

    func updateUser(_ request: HTTPRequest, _ viewer: Viewer) throws -> APIResponse {
        let body = try request.jsonBody(accepting: ["application/merge-patch+json", "application/json"])
        if let disabled = body["disabled"], disabled.boolValue == nil {
            throw AccountService.invalid("disabled", "disabled must be true or false.")
        }
        if let password = body["password"], password.stringValue == nil {
            throw AccountService.invalid("password", "password must be a string.")
        }
        let user = try service.updateUser(id: request.parameters["id"] ?? "", role: try Self.role(body["role"], required: false),
                                          disabled: body["disabled"]?.boolValue, password: body["password"]?.stringValue,
                                          by: viewer, request: request)
        return APIResponse(status: 200, body: user.json)
    }

    func createKey(_ request: HTTPRequest, _ viewer: Viewer) throws -> APIResponse {
        let body = try request.jsonBody()
        let role = try Self.role(body["role"], required: true) ?? .viewer
        var scope = APIKeyScope.full
        if let value = body["scope"] {
            guard let text = value.stringValue, let parsed = APIKeyScope(rawValue: text) else {
                throw AccountService.invalid("scope", "scope must be one of full, events.")
            }
            scope = parsed
        }
        let created = try service.createKey(name: body["name"]?.stringValue ?? "", role: role, scope: scope,
                                            by: viewer, request: request)
        guard case .object(var json) = created.record.json else { return APIResponse(status: 500, body: nil) }
        json["key"] = .string(created.key)
        return APIResponse(status: 201, body: .object(json), headers: [("Cache-Control", "no-store")])
    }

    func listAudit(_ request: HTTPRequest, _ viewer: Viewer) throws -> APIResponse {
        var limit = Self.defaultAuditPage
        var before: Int64?
        for (name, value) in request.queryItems {
            switch name {
            case "limit" where Int(value).map { (1...Self.maximumAuditPage).contains($0) } == true: limit = Int(value)!
            case "cursor" where Int64(value).map { $0 > 0 } == true: before = Int64(value)!
            default:
                throw Problem.badRequest(code: "invalid_query",
                                         "Unknown or invalid query parameter \"\(name)\": limit is 1 to \(Self.maximumAuditPage), cursor is a next_cursor.")
            }
        }
        let page = try access.pool.withConnection { try audit.list(before: before, limit: limit, on: $0) }
        return APIResponse(status: 200, body: ["items": .array(page.entries.map(\.json)),
                                               "next_cursor": page.next.map { .string(String($0)) } ?? .null])
    }

    static func role(_ value: JSON?, required: Bool) throws(Problem) -> Role? {
        guard let value else {
            if required { throw AccountService.invalid("role", "role is required: one of \(Role.allCases.map(\.rawValue).joined(separator: ", ")).") }
            return nil
        }
        guard let text = value.stringValue, let role = Role(rawValue: text) else {
            throw AccountService.invalid("role", "role must be one of \(Role.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        return role
    }
}
