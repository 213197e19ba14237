import HeraldApp

/// `/users`: every account with a form to change its role or disable it, and a form to add one.
struct UsersView: PageView {
    struct Row: Sendable {
        let id: String
        let email: String
        let role: String
        let roleText: String
        let disabled: Bool
        let createdAt: String
        /// An admin cannot demote or disable themself from this page.
        let isSelf: Bool
        let roles: [Choice]

        init(_ user: UserRecord, viewer: Viewer?, words: Localized) {
            id = user.id.description
            email = user.email
            role = user.role.rawValue
            roleText = words.text("role.\(user.role.rawValue)")
            disabled = user.disabled
            createdAt = words.shortTime(user.createdAt)
            isSelf = user.id == viewer?.userID
            roles = Role.allCases.map { Choice($0.rawValue, text: words.text("role.\($0.rawValue)"), selected: $0 == user.role) }
        }
    }

    static let template = "accounts-users"
    let chrome: PageChrome
    let users: [Row]
    let roles: [Choice]
    let error: String?

    /// The roles to choose from, each named in the page's language.
    static func roles(_ words: Localized) -> [Choice] {
        Role.allCases.map { Choice($0.rawValue, text: words.text("role.\($0.rawValue)")) }
    }
}
