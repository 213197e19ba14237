import HeraldApp
import HeraldJSON

/// `/audit`: the newest entries first, fifty a page, each action in words with its code beside.
struct AuditView: PageView {
    struct Row: Sendable {
        let at: String
        let actor: String
        /// The machine code (`campaign.approved`), kept beside the words for those who search by it.
        let action: String
        /// The action in words in the page's language ("Campaign approved").
        let actionText: String
        /// What kind of object, in words ("Campaign"; the stored kind when no table names it).
        let objectType: String
        let objectID: String
        let address: String
        let details: String

        init(_ entry: AuditEntry, words: Localized) {
            at = words.shortTime(entry.at)
            actor = entry.actor
            action = entry.action
            actionText = words.auditActionText(entry.action)
            objectType = entry.object.map { words.auditObjectText($0.type) } ?? ""
            objectID = entry.object?.text ?? ""
            address = entry.address
            details = entry.details == .object([:]) ? "" : entry.details.serializedString()
        }
    }

    static let template = "accounts-audit"
    let chrome: PageChrome
    let entries: [Row]
    /// The cursor of the next, older page.
    let next: String?
}

extension Localized {
    /// An audit action in words (`audit.action.<code>`); an action no table names (one recorded by
    /// an older or newer Herald) is shown as its code.
    func auditActionText(_ code: String) -> String {
        Self.tables.tables[language]?["audit.action.\(code)"] ?? code
    }

    /// The kind of an audit entry's object in words (`audit.object.<type>`), else as stored.
    func auditObjectText(_ type: String) -> String {
        Self.tables.tables[language]?["audit.object.\(type)"] ?? type
    }
}
