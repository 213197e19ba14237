import HeraldApp
import HeraldCore
import HeraldJSON

/// `/api/v1/me`, `/api/v1/users`, `/api/v1/api-keys` and `/api/v1/audit`. All but `me` are for admins.
struct AccountsAPI: Sendable {
    let accounts: AccountService

    static let defaultAuditPage = 50
    static let maximumAuditPage = 200

    func me(_ context: RequestContext) -> APIResponse {
        let viewer = context.viewer
        return APIResponse(status: 200, body: ["email": .string(viewer?.email ?? ""), "role": .string(viewer?.role.rawValue ?? ""),
                                               "user_id": viewer?.userID.map { .string($0.description) } ?? .null,
                                               "api_key_id": viewer?.apiKeyID.map { .string($0.description) } ?? .null])
    }

    func listUsers(_ context: RequestContext) throws -> APIResponse {
        APIResponse(status: 200, body: ["items": .array(try accounts.listUsers().map(\.json))])
    }

    func listKeys(_ context: RequestContext) throws -> APIResponse {
        APIResponse(status: 200, body: ["items": .array(try accounts.listKeys().map(\.json))])
    }

    func createUser(_ context: RequestContext) throws -> APIResponse {
        let body = try context.jsonBody()
        let role = try Self.role(body["role"], required: true) ?? .viewer
        let user = try accounts.createUser(email: body["email"]?.stringValue ?? "", role: role,
                                           password: body["password"]?.stringValue ?? "", by: context.actor)
        return APIResponse(status: 201, body: user.json, headers: [("Location", "/api/v1/users/\(user.id)")])
    }

    func updateUser(_ context: RequestContext) throws -> APIResponse {
        let body = try context.jsonBody(accepting: ["application/merge-patch+json", "application/json"])
        guard case .object(let members) = body else {
            throw AppError.invalidField("", "A user patch is a JSON object such as {\"role\": \"editor\"}.", code: "wrong_type")
        }
        for key in members.keys where !["role", "disabled", "password"].contains(key) {
            throw AppError.invalidField(key, "unknown field \"\(key)\"; known: role, disabled, password", code: "unknown_field")
        }
        if let disabled = body["disabled"], disabled.boolValue == nil {
            throw AppError.invalidField("disabled", "disabled must be true or false.")
        }
        if let password = body["password"], password.stringValue == nil {
            throw AppError.invalidField("password", "password must be a string.")
        }
        let user = try accounts.updateUser(id: try context.userID(), role: try Self.role(body["role"], required: false),
                                           disabled: body["disabled"]?.boolValue, password: body["password"]?.stringValue,
                                           by: context.actor)
        return APIResponse(status: 200, body: user.json)
    }

    func createKey(_ context: RequestContext) throws -> APIResponse {
        let body = try context.jsonBody()
        let role = try Self.role(body["role"], required: true) ?? .viewer
        var scope = APIKeyScope.full
        if let value = body["scope"] {
            guard let text = value.stringValue, let parsed = APIKeyScope(rawValue: text) else {
                throw AppError.invalidField("scope", "scope must be one of \(APIKeyScope.allCases.map(\.rawValue).joined(separator: ", ")).")
            }
            scope = parsed
        }
        let inlineSends = body["inline_sends"] ?? .bool(false)
        guard let allowsInline = inlineSends.boolValue else {
            throw AppError.invalidField("inline_sends", "inline_sends must be true or false.")
        }
        let created = try accounts.createKey(name: body["name"]?.stringValue ?? "", role: role, scope: scope, inlineSends: allowsInline,
                                             by: context.actor)
        var json = created.record.json.objectValue ?? [:]
        json["key"] = .string(created.key)
        return APIResponse(status: 201, body: .object(json), headers: [("Cache-Control", "no-store")])
    }

    func revokeKey(_ context: RequestContext) throws -> APIResponse {
        APIResponse(status: 200, body: try accounts.revokeKey(id: try context.apiKeyID(), by: context.actor).json)
    }

    func listAudit(_ context: RequestContext) throws -> APIResponse {
        let (limit, before) = try context.pageQuery(defaultLimit: Self.defaultAuditPage, maximumLimit: Self.maximumAuditPage) { value in
            Int64(value).flatMap { $0 > 0 ? $0 : nil }
        }
        let page = try accounts.auditEntries(before: before, limit: limit)
        return APIResponse(status: 200, body: ["items": .array(page.entries.map(\.json)),
                                               "next_cursor": page.next.map { .string(String($0)) } ?? .null])
    }

    static func role(_ value: JSON?, required: Bool) throws(AppError) -> Role? {
        guard let value else {
            if required { throw .invalidField("role", "role is required: one of \(Role.allCases.map(\.rawValue).joined(separator: ", ")).") }
            return nil
        }
        guard let text = value.stringValue, let role = Role(rawValue: text) else {
            throw .invalidField("role", "role must be one of \(Role.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        return role
    }
}
