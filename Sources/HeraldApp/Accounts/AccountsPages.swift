import HeraldHTTP
import HeraldJSON

/// Admin pages: `/users`, `/api-keys` and `/audit`. Plain HTML forms, each with the session's CSRF token.
struct AccountsPages: Sendable {
    let access: AccessControl
    let service: AccountService
    let audit = AuditLog()

    init(access: AccessControl) {
        self.access = access
        service = AccountService(pool: access.pool)
    }

    func register(on router: inout Router) {
        router.add(.get, "/users", access.page(.admin) { request, viewer in users(viewer) })
        router.add(.post, "/users", access.page(.admin, createUser))
        router.add(.post, "/users/{id}", access.page(.admin, updateUser))
        router.add(.get, "/api-keys", access.page(.admin) { request, viewer in keys(viewer) })
        router.add(.post, "/api-keys", access.page(.admin, createKey))
        router.add(.post, "/api-keys/{id}/revoke", access.page(.admin, revokeKey))
        router.add(.get, "/audit", access.page(.admin, auditPage))
    }

    // MARK: - Users

    func users(_ viewer: Viewer, message: String? = nil, error: String? = nil, status: Int = 200) -> HTTPResponse {
        guarded(viewer) {
            var context = viewer.layoutContext
            context["users"] = try service.listUsers().map { user -> [String: Any] in
                ["id": user.id, "email": user.email, "role": user.role.rawValue, "disabled": user.disabled,
                 "created_at": user.createdAt, "is_self": user.id == viewer.userID,
                 "roles": Role.allCases.map { ["name": $0.rawValue, "selected": $0 == user.role] }]
            }
            context["roles"] = Role.allCases.map { ["name": $0.rawValue] }
            if let message { context["flash"] = [message] }
            if let error { context["error"] = error }
            return access.pages.page("accounts-users", context, status: status)
        }
    }

    func createUser(_ request: HTTPRequest, _ viewer: Viewer) -> HTTPResponse {
        let role = Role(rawValue: request.formField("role") ?? "") ?? .viewer
        do {
            let user = try service.createUser(email: request.formField("email") ?? "", role: role,
                                              password: request.formField("password") ?? "", by: viewer, request: request)
            return users(viewer, message: "Created \(user.email) (\(user.role.rawValue)).")
        } catch let problem as Problem {
            return users(viewer, error: problem.detail ?? problem.title, status: problem.status)
        } catch {
            return failure(viewer, error, request)
        }
    }

    func updateUser(_ request: HTTPRequest, _ viewer: Viewer) -> HTTPResponse {
        let role = request.formField("role").flatMap(Role.init(rawValue:))
        let disabled = request.formField("disabled").map { $0 == "true" }
        do {
            let user = try service.updateUser(id: request.parameters["id"] ?? "", role: role, disabled: disabled, password: nil,
                                              by: viewer, request: request)
            return users(viewer, message: "Updated \(user.email): \(user.role.rawValue)\(user.disabled ? ", disabled" : "").")
        } catch let problem as Problem {
            return users(viewer, error: problem.detail ?? problem.title, status: problem.status)
        } catch {
            return failure(viewer, error, request)
        }
    }

    // MARK: - API keys

    func keys(_ viewer: Viewer, created: (key: String, record: APIKeyRecord)? = nil, message: String? = nil,
              error: String? = nil, status: Int = 200) -> HTTPResponse {
        guarded(viewer) {
            var context = viewer.layoutContext
            context["keys"] = try service.listKeys().map { key -> [String: Any] in
                ["id": key.id, "name": key.name, "prefix": key.prefix, "role": key.role.rawValue, "scope": key.scope.rawValue,
                 "created_by": key.createdBy ?? "", "created_at": key.createdAt, "last_used_at": key.lastUsedAt ?? "never",
                 "revoked_at": key.revokedAt ?? "", "revoked": key.revokedAt != nil]
            }
            context["roles"] = Role.allCases.map { ["name": $0.rawValue] }
            if let created { context["created"] = ["key": created.key, "name": created.record.name] }
            if let message { context["flash"] = [message] }
            if let error { context["error"] = error }
            return access.pages.page("accounts-api-keys", context, status: status)
        }
    }

    func createKey(_ request: HTTPRequest, _ viewer: Viewer) -> HTTPResponse {
        let role = Role(rawValue: request.formField("role") ?? "") ?? .viewer
        let scope = APIKeyScope(rawValue: request.formField("scope") ?? "") ?? .full
        do {
            let created = try service.createKey(name: request.formField("name") ?? "", role: role, scope: scope,
                                                by: viewer, request: request)
            return keys(viewer, created: created)
        } catch let problem as Problem {
            return keys(viewer, error: problem.detail ?? problem.title, status: problem.status)
        } catch {
            return failure(viewer, error, request)
        }
    }

    func revokeKey(_ request: HTTPRequest, _ viewer: Viewer) -> HTTPResponse {
        do {
            let key = try service.revokeKey(id: request.parameters["id"] ?? "", by: viewer, request: request)
            return keys(viewer, message: "Revoked \(key.name) (\(key.prefix)…).")
        } catch let problem as Problem {
            return keys(viewer, error: problem.detail ?? problem.title, status: problem.status)
        } catch {
            return failure(viewer, error, request)
        }
    }

    // MARK: - Audit log

    func auditPage(_ request: HTTPRequest, _ viewer: Viewer) -> HTTPResponse {
        let before = request.queryItems.first { $0.name == "cursor" }.flatMap { Int64($0.value) }
        return guarded(viewer) {
            let page = try access.pool.withConnection { try audit.list(before: before, limit: 50, on: $0) }
            var context = viewer.layoutContext
            context["entries"] = page.entries.map { entry -> [String: Any] in
                ["at": entry.at, "actor": entry.actor, "action": entry.action, "object_type": entry.objectType ?? "",
                 "object_id": entry.objectID ?? "", "address": entry.address,
                 "details": entry.details == .object([:]) ? "" : entry.details.serializedString()]
            }
            if let next = page.next { context["next"] = String(next) }
            return access.pages.page("accounts-audit", context)
        }
    }

    // MARK: - Helpers

    func guarded(_ viewer: Viewer, _ body: () throws -> HTTPResponse) -> HTTPResponse {
        do {
            return try body()
        } catch {
            access.log.error("admin page failed: \(error)")
            var context = viewer.layoutContext
            context["heading"] = "Something went wrong"
            context["message"] = "Herald could not load this page; the error has been logged. Try again shortly."
            return access.pages.page("access-denied", context, status: 503)
        }
    }

    func failure(_ viewer: Viewer, _ error: any Error, _ request: HTTPRequest) -> HTTPResponse {
        access.log.error("admin action failed: \(error)", request: request)
        var context = viewer.layoutContext
        context["heading"] = "Something went wrong"
        context["message"] = "Herald could not do this; the error has been logged. Try again shortly."
        return access.pages.page("access-denied", context, status: 503)
    }
}
