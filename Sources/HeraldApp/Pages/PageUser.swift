/// Who is looking at a page, as the templates need it: taken from the access-control `Viewer`.
struct PageUser: Sendable {
    /// Who it is, for the audit log.
    var viewer: Viewer
    var email: String
    /// viewer, editor, publisher or admin.
    var role: String
    /// The session's CSRF token, put in every form.
    var csrfToken: String

    var canEdit: Bool { role != "viewer" }
    var canPublish: Bool { role == "publisher" || role == "admin" }

    /// The layout's `user` block.
    var context: [String: Any] { ["email": email, "role": role, "csrf_token": csrfToken, "is_admin": viewer.role >= .admin] }
}
