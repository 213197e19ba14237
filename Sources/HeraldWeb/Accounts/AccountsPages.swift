import HeraldApp
import HeraldHTTP
import HeraldJSON

/// Admin pages: `/users`, `/api-keys` and `/audit`. Plain HTML forms, each with the session's CSRF
/// token. A refused change shows the list again with the reason and the API's status.
struct AccountsPages: Sendable {
    let accounts: AccountService
    let pages: PageRenderer

    // MARK: - Users

    func users(_ context: RequestContext) throws -> HTTPResponse { try usersPage(context) }

    func usersPage(_ context: RequestContext, message: String? = nil, error: String? = nil, status: Int = 200) throws -> HTTPResponse {
        var page = pages.layout(context)
        page["users"] = try accounts.listUsers().map { user -> [String: Any] in
            ["id": user.id, "email": user.email, "role": user.role.rawValue, "disabled": user.disabled,
             "created_at": user.createdAt, "is_self": user.id == context.viewer?.userID,
             "roles": Role.allCases.map { ["name": $0.rawValue, "selected": $0 == user.role] }]
        }
        page["roles"] = Role.allCases.map { ["name": $0.rawValue] }
        if let message { page["flash"] = [message] }
        if let error { page["error"] = error }
        return pages.page("accounts-users", page, status: status)
    }

    func createUser(_ context: RequestContext) throws -> HTTPResponse {
        let role = Role(rawValue: context.form.value("role") ?? "") ?? .viewer
        do {
            let user = try accounts.createUser(email: context.form.value("email") ?? "", role: role,
                                               password: context.form.value("password") ?? "", by: context.actor)
            return try usersPage(context, message: "Created \(user.email) (\(user.role.rawValue)).")
        } catch let error as AppError where Self.shownInPage(error) {
            return try usersPage(context, error: error.message, status: ProblemRenderer.problem(for: error).status)
        }
    }

    func updateUser(_ context: RequestContext) throws -> HTTPResponse {
        let role = context.form.value("role").flatMap(Role.init(rawValue:))
        let disabled = context.form.value("disabled").map { $0 == "true" }
        do {
            let user = try accounts.updateUser(id: context.parameter("id"), role: role, disabled: disabled, password: nil, by: context.actor)
            return try usersPage(context, message: "Updated \(user.email): \(user.role.rawValue)\(user.disabled ? ", disabled" : "").")
        } catch let error as AppError where Self.shownInPage(error) {
            return try usersPage(context, error: error.message, status: ProblemRenderer.problem(for: error).status)
        }
    }

    // MARK: - API keys

    func keys(_ context: RequestContext) throws -> HTTPResponse { try keysPage(context) }

    func keysPage(_ context: RequestContext, created: (key: String, record: APIKeyRecord)? = nil, message: String? = nil,
                  error: String? = nil, status: Int = 200) throws -> HTTPResponse {
        var page = pages.layout(context)
        page["keys"] = try accounts.listKeys().map { key -> [String: Any] in
            ["id": key.id, "name": key.name, "prefix": key.prefix, "role": key.role.rawValue, "scope": key.scope.rawValue,
             "created_by": key.createdBy ?? "", "created_at": key.createdAt, "last_used_at": key.lastUsedAt ?? "never",
             "revoked_at": key.revokedAt ?? "", "revoked": key.revokedAt != nil]
        }
        page["roles"] = Role.allCases.map { ["name": $0.rawValue] }
        if let created { page["created"] = ["key": created.key, "name": created.record.name] }
        if let message { page["flash"] = [message] }
        if let error { page["error"] = error }
        return pages.page("accounts-api-keys", page, status: status)
    }

    func createKey(_ context: RequestContext) throws -> HTTPResponse {
        let role = Role(rawValue: context.form.value("role") ?? "") ?? .viewer
        let scope = APIKeyScope(rawValue: context.form.value("scope") ?? "") ?? .full
        do {
            let created = try accounts.createKey(name: context.form.value("name") ?? "", role: role, scope: scope, by: context.actor)
            return try keysPage(context, created: created)
        } catch let error as AppError where Self.shownInPage(error) {
            return try keysPage(context, error: error.message, status: ProblemRenderer.problem(for: error).status)
        }
    }

    func revokeKey(_ context: RequestContext) throws -> HTTPResponse {
        do {
            let key = try accounts.revokeKey(id: context.parameter("id"), by: context.actor)
            return try keysPage(context, message: "Revoked \(key.name) (\(key.prefix)…).")
        } catch let error as AppError where Self.shownInPage(error) {
            return try keysPage(context, error: error.message, status: ProblemRenderer.problem(for: error).status)
        }
    }

    // MARK: - Audit log

    func audit(_ context: RequestContext) throws -> HTTPResponse {
        let before = context.query("cursor").flatMap { Int64($0) }
        let entries = try accounts.auditEntries(before: before, limit: 50)
        var page = pages.layout(context)
        page["entries"] = entries.entries.map { entry -> [String: Any] in
            ["at": entry.at, "actor": entry.actor, "action": entry.action, "object_type": entry.objectType ?? "",
             "object_id": entry.objectID ?? "", "address": entry.address,
             "details": entry.details == .object([:]) ? "" : entry.details.serializedString()]
        }
        if let next = entries.next { page["next"] = String(next) }
        return pages.page("accounts-audit", page)
    }

    /// Refusals the admin can act on in the page itself; an outage goes to the error page.
    static func shownInPage(_ error: AppError) -> Bool {
        if case .unavailable = error { return false }
        return true
    }
}
