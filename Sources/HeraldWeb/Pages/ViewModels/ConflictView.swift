import HeraldApp
import HeraldJSON

/// Someone saved the campaign after this author loaded it: who, when, and what differs between
/// their stored version and the one this author typed.
struct ConflictView: Sendable {
    /// A top-level member of the campaign that differs.
    struct Change: Sendable {
        let field: String
        let theirs: String
        let yours: String
    }

    let theirVersion: Int
    let yourVersion: Int
    let theirAuthor: String
    let theirTime: String
    let theirs: String
    let yours: String
    let changes: [Change]
    /// "ana@example.com saved version 4 at …; you started from version 3."
    let summary: String
    /// "Theirs (version 4)".
    let theirsHeading: String
    let hasChanges: Bool

    init(current: CampaignRecord, yours: JSON, yourVersion: Int, words: Localized) {
        theirVersion = current.version
        self.yourVersion = yourVersion
        theirAuthor = current.updatedBy?.description ?? current.author ?? words.text("composer.conflict.api_client")
        theirTime = words.shortTime(current.updatedAt)
        theirs = current.content.prettyString()
        self.yours = yours.prettyString()
        changes = Self.differences(theirs: current.content, yours: yours, words: words)
        hasChanges = !changes.isEmpty
        summary = words.text("composer.conflict.summary", theirAuthor, words.number(theirVersion), theirTime, words.number(yourVersion))
        theirsHeading = words.text("composer.conflict.theirs", words.number(theirVersion))
    }

    static func differences(theirs: JSON, yours: JSON, words: Localized) -> [Change] {
        let a = theirs.objectValue ?? [:], b = yours.objectValue ?? [:]
        var keys = a.keys
        for key in b.keys where !keys.contains(key) { keys.append(key) }
        return keys.compactMap { key in
            let left = a[key], right = b[key]
            guard left != right else { return nil }
            return Change(field: key, theirs: left.map(CampaignPages.brief) ?? words.text("composer.conflict.none"), yours: right.map(CampaignPages.brief) ?? words.text("composer.conflict.none"))
        }
    }
}
