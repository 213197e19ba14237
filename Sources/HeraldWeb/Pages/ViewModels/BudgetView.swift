import HeraldCore
import HeraldJSON

/// The composer's counter: characters of 1000 and the message's bytes of FCM's limit, for the
/// variant closest to (or furthest over) a limit, with what to cut. The page shows it on load and
/// after a failed save; the script asks for it again as the author types (`POST /campaigns/budget`).
struct BudgetView: Sendable {
    let characters: Int
    let characterLimit: Int
    let bytes: Int
    let byteLimit: Int
    let over: Bool
    let advice: String
    /// How the two limits are counted.
    let hint: String
    /// The figures in the page's digits.
    let charactersText: String
    let characterLimitText: String
    let bytesText: String
    let byteLimitText: String

    init(_ form: CampaignForm, words: Localized) {
        var ignored = FormErrors()
        let budgets = CampaignSpec.budgets(ofDraft: form.contractJSON(errors: &ignored, words: words)) ?? []
        // The variant nearest its limit speaks for the campaign: that is the one to shorten.
        let worst = budgets.max { lhs, rhs in
            (lhs.isOver ? 1 : 0, Double(lhs.bytes) / Double(lhs.byteLimit)) < (rhs.isOver ? 1 : 0, Double(rhs.bytes) / Double(rhs.byteLimit))
        }
        characters = worst?.characters ?? form.title.count + form.body.count
        characterLimit = CampaignLimits.notificationCharacters
        bytes = worst?.bytes ?? 0
        byteLimit = worst?.byteLimit ?? Target.topic("t").payloadLimit
        over = worst?.isOver ?? false
        let variantNote = budgets.count > 1 && over ? words.text("budget.variant_note", worst?.variant ?? "") : ""
        advice = worst.flatMap { Self.advice($0, words: words) }.map { $0 + variantNote } ?? ""
        // Topics and conditions have the smaller limit; a message to one device (tokens, a segment) the larger.
        let forTopics = byteLimit == Target.topic("t").payloadLimit
        hint = words.text(forTopics ? "composer.budget.hint" : "composer.budget.hint_device", words.number(byteLimit))
        charactersText = words.number(characters)
        characterLimitText = words.number(characterLimit)
        bytesText = words.number(bytes)
        byteLimitText = words.number(byteLimit)
    }

    /// What to cut, in the page's language (`MessageBudget.advice` is the English of it).
    static func advice(_ budget: MessageBudget, words: Localized) -> String? {
        guard let cut = budget.charactersToCut else {
            return words.text("budget.data_over", words.number(budget.bytes), words.number(budget.byteLimit))
        }
        guard cut > 0 else { return nil }
        return words.plural("budget.shorten", count: cut)
    }

    var json: JSON {
        ["characters": .number(Double(characters)), "character_limit": .number(Double(characterLimit)),
         "bytes": .number(Double(bytes)), "byte_limit": .number(Double(byteLimit)), "over": .bool(over), "advice": .string(advice)]
    }
}
