import HeraldApp

/// What `layout.mustache` reads on every page: the title, the viewer (e-mail, role, admin links),
/// the session's CSRF token that every form posts back, what the viewer may change, and notices.
struct PageChrome: Sendable {
    /// The signed-in user in the top bar.
    struct User: Sendable {
        let email: String
        let role: String
        let isAdmin: Bool
    }

    let title: String
    let user: User?
    let csrfToken: String
    let canEdit: Bool
    let flash: [String]

    /// A page that shows no viewer even when a session exists (the sign-in form).
    init(title: String, viewer: Viewer? = nil, flash: [String] = []) {
        self.title = title
        user = viewer.map { User(email: $0.email, role: $0.role.rawValue, isAdmin: $0.role >= .admin) }
        csrfToken = viewer?.csrfToken ?? ""
        canEdit = (viewer?.role ?? .viewer) >= .editor
        self.flash = flash
    }

    init(_ context: RequestContext, title: String, flash: [String] = []) {
        self.init(title: title, viewer: context.viewer, flash: flash)
    }
}
