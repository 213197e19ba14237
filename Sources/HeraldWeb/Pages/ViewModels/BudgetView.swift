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

    init(_ form: CampaignForm) {
        var ignored = FormErrors()
        let budgets = CampaignSpec.budgets(ofDraft: form.contractJSON(errors: &ignored)) ?? []
        // The variant nearest its limit speaks for the campaign: that is the one to shorten.
        let worst = budgets.max { lhs, rhs in
            (lhs.isOver ? 1 : 0, Double(lhs.bytes) / Double(lhs.byteLimit)) < (rhs.isOver ? 1 : 0, Double(rhs.bytes) / Double(rhs.byteLimit))
        }
        characters = worst?.characters ?? form.title.count + form.body.count
        characterLimit = CampaignLimits.notificationCharacters
        bytes = worst?.bytes ?? 0
        byteLimit = worst?.byteLimit ?? Target.topic("t").payloadLimit
        over = worst?.isOver ?? false
        let variantNote = budgets.count > 1 && over ? " (variant \(worst?.variant ?? ""))" : ""
        advice = (worst?.advice).map { $0 + variantNote } ?? ""
    }

    var json: JSON {
        ["characters": .number(Double(characters)), "character_limit": .number(Double(characterLimit)),
         "bytes": .number(Double(bytes)), "byte_limit": .number(Double(byteLimit)), "over": .bool(over), "advice": .string(advice)]
    }
}
