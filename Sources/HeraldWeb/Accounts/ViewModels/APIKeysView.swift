import HeraldApp

/// `/api-keys`: every key (never the secret, only its prefix), a form to create one, and the
/// new key's secret once, right after it was created.
struct APIKeysView: PageView {
    struct Row: Sendable {
        let id: String
        let name: String
        let prefix: String
        let role: String
        let roleText: String
        let scope: String
        /// The admin's exemption, said beside the scope (empty when the key has none).
        let inlineSends: String
        let createdBy: String
        let createdAt: String
        let lastUsedAt: String
        let revokedAt: String
        let revoked: Bool
        let revokeQuestion: String

        static func revokeQuestion(_ key: APIKeyRecord, words: Localized) -> String {
            words.text("keys.revoke.question", key.name, key.prefix)
        }

        init(_ key: APIKeyRecord, words: Localized) {
            id = key.id.description
            name = key.name
            prefix = key.prefix
            role = key.role.rawValue
            roleText = words.text("role.\(key.role.rawValue)")
            scope = key.scope.rawValue
            inlineSends = key.inlineSends ? words.text("keys.inline_sends") : ""
            createdBy = key.createdBy ?? ""
            createdAt = words.shortTime(key.createdAt)
            lastUsedAt = key.lastUsedAt.map(words.shortTime) ?? words.text("keys.never")
            revokedAt = key.revokedAt.map(words.shortTime) ?? ""
            revokeQuestion = Self.revokeQuestion(key, words: words)
            revoked = key.revokedAt != nil
        }
    }

    struct Created: Sendable {
        let key: String
        let name: String
    }

    static let template = "accounts-api-keys"
    let chrome: PageChrome
    let keys: [Row]
    let roles: [Choice]
    let created: Created?
    let error: String?
}
