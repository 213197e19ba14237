import HeraldApp
import HeraldJSON

/// `/audit`: the newest entries first, fifty a page.
struct AuditView: PageView {
    struct Row: Sendable {
        let at: String
        let actor: String
        let action: String
        let objectType: String
        let objectID: String
        let address: String
        let details: String

        init(_ entry: AuditEntry, words: Localized) {
            at = words.shortTime(entry.at)
            actor = entry.actor
            action = entry.action
            objectType = entry.object?.type ?? ""
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
