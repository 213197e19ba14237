import HeraldApp
import HeraldHTTP

/// Admin pages: `/users`, `/api-keys` and `/audit`. Plain HTML forms, each with the session's CSRF
/// token. A refused change shows the list again with the reason and the API's status.
struct AccountsPages: Sendable {
    let accounts: AccountService
    let pages: PageRenderer

    // MARK: - Users

    func users(_ context: RequestContext) throws -> HTTPResponse { try usersPage(context) }

    func usersPage(_ context: RequestContext, message: String? = nil, error: String? = nil, status: Int = 200) throws -> HTTPResponse {
        let words = context.words
        let users = try accounts.listUsers().map { UsersView.Row($0, viewer: context.viewer, words: words) }
        let chrome = PageChrome(context, title: words.text("nav.users"), flash: message.map { [$0] } ?? [])
        return pages.page(UsersView(chrome: chrome, users: users, roles: UsersView.roles(words), error: error), status: status)
    }

    func createUser(_ context: RequestContext) throws -> HTTPResponse {
        let words = context.words
        let role = Role(rawValue: context.form.value("role") ?? "") ?? .viewer
        do {
            let user = try accounts.createUser(email: context.form.value("email") ?? "", role: role,
                                               password: context.form.value("password") ?? "", by: context.actor)
            return try usersPage(context, message: words.text("accounts.created_user", user.email, words.text("role.\(user.role.rawValue)")))
        } catch let error as AppError where Self.shownInPage(error) {
            return try usersPage(context, error: words.message(error), status: ProblemRenderer.problem(for: error, words: words).status)
        }
    }

    func updateUser(_ context: RequestContext) throws -> HTTPResponse {
        let words = context.words
        let role = context.form.value("role").flatMap(Role.init(rawValue:))
        let disabled = context.form.value("disabled").map { $0 == "true" }
        do {
            let user = try accounts.updateUser(id: try context.userID(), role: role, disabled: disabled, password: nil, by: context.actor)
            return try usersPage(context, message: words.text(user.disabled ? "accounts.updated_user_disabled" : "accounts.updated_user", user.email, words.text("role.\(user.role.rawValue)")))
        } catch let error as AppError where Self.shownInPage(error) {
            return try usersPage(context, error: words.message(error), status: ProblemRenderer.problem(for: error, words: words).status)
        }
    }

    // MARK: - API keys

    func keys(_ context: RequestContext) throws -> HTTPResponse { try keysPage(context) }

    func keysPage(_ context: RequestContext, created: (key: String, record: APIKeyRecord)? = nil, message: String? = nil,
                  error: String? = nil, status: Int = 200) throws -> HTTPResponse {
        let words = context.words
        let keys = try accounts.listKeys().map { APIKeysView.Row($0, words: words) }
        let chrome = PageChrome(context, title: words.text("nav.api_keys"), flash: message.map { [$0] } ?? [])
        return pages.page(APIKeysView(chrome: chrome, keys: keys, roles: UsersView.roles(words), created: created.map { .init(key: $0.key, name: $0.record.name) },
                                      error: error), status: status)
    }

    func createKey(_ context: RequestContext) throws -> HTTPResponse {
        let words = context.words
        let role = Role(rawValue: context.form.value("role") ?? "") ?? .viewer
        let scope = APIKeyScope(rawValue: context.form.value("scope") ?? "") ?? .full
        do {
            let created = try accounts.createKey(name: context.form.value("name") ?? "", role: role, scope: scope,
                                                 inlineSends: context.form.value("inline_sends") == "on", by: context.actor)
            return try keysPage(context, created: created)
        } catch let error as AppError where Self.shownInPage(error) {
            return try keysPage(context, error: words.message(error), status: ProblemRenderer.problem(for: error, words: words).status)
        }
    }

    func revokeKey(_ context: RequestContext) throws -> HTTPResponse {
        let words = context.words
        let keyID = APIKeyID(context.parameter("id"))
        if let key = try accounts.listKeys().first(where: { $0.id == keyID }),
           let page = ConfirmView.unlessConfirmed(context, pages: pages, heading: words.text("keys.revoke.heading"), text: APIKeysView.Row.revokeQuestion(key, words: words),
                                                  confirmLabel: words.text("keys.revoke.confirm", key.name), back: "/api-keys") {
            return page
        }
        do {
            let key = try accounts.revokeKey(id: try context.apiKeyID(), by: context.actor)
            return try keysPage(context, message: words.text("keys.revoked_message", key.name, key.prefix))
        } catch let error as AppError where Self.shownInPage(error) {
            return try keysPage(context, error: words.message(error), status: ProblemRenderer.problem(for: error, words: words).status)
        }
    }

    // MARK: - Audit log

    func audit(_ context: RequestContext) throws -> HTTPResponse {
        let words = context.words
        let before = context.query("cursor").flatMap { Int64($0) }
        let entries = try accounts.auditEntries(before: before, limit: 50)
        return pages.page(AuditView(chrome: PageChrome(context, title: words.text("nav.audit")), entries: entries.entries.map { AuditView.Row($0, words: words) },
                                    next: entries.next.map(String.init)))
    }

    /// Refusals the admin can act on in the page itself; an outage goes to the error page.
    static func shownInPage(_ error: AppError) -> Bool {
        if case .unavailable = error { return false }
        return true
    }
}
