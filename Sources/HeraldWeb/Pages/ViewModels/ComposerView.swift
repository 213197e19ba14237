import Foundation
import HeraldCore

/// The composer page: the form as typed, its errors beside each field and in a summary, the
/// notification preview (server-rendered, so it shows without JavaScript too), and, after a
/// lost race with another editor, both versions side by side.
struct ComposerView: PageView {
    /// One line of the error summary, linking to its field.
    struct ErrorLine: Sendable {
        let field: String
        let label: String
        let message: String
    }

    static let template = "composer"
    let chrome: PageChrome
    let form: ComposerFields
    let errors: ComposerErrors
    let hasErrors: Bool
    let severalErrors: Bool
    let errorSummary: [ErrorLine]
    let action: String
    let isNew: Bool
    let characterLimit = CampaignLimits.notificationCharacters
    let imageLimitKB = ImageInspector.maximumBytes / 1024
    let preview: NotificationPreview
    let campaignID: String?
    let status: String?
    let conflict: ConflictView?

    init(chrome: PageChrome, form: CampaignForm, errors: FormErrors, campaignID: String?, status: CampaignStatus?,
         conflict: ConflictView? = nil) {
        self.chrome = chrome
        self.form = ComposerFields(form, errors)
        self.errors = ComposerErrors(errors)
        hasErrors = !errors.isEmpty
        severalErrors = errors.order.count > 1
        errorSummary = errors.order.flatMap { field in errors[field].map { ErrorLine(field: field, label: Self.label(field), message: $0) } }
        action = campaignID.map { "/campaigns/\($0)" } ?? "/campaigns"
        isNew = campaignID == nil
        preview = NotificationPreview(title: form.title, body: form.body, imageURL: form.imageURL,
                                      color: form.options["color"] ?? "", icon: form.options["icon"] ?? "")
        self.campaignID = campaignID
        self.status = status?.rawValue
        self.conflict = conflict
    }

    /// A person's name for a form field, for the error summary.
    static func label(_ field: String) -> String {
        let names = ["name": "Campaign name", "title": "Title", "body": "Text", "image_url": "Image URL", "image_file": "Image upload",
                     "topics": "Topics", "condition": "Condition", "schedule_kind": "Schedule", "schedule_at": "Date and time",
                     "schedule_time": "Time of day", "schedule_until": "Until", "time_zone": "Time zone", "schedule_days": "Days",
                     "holdout_percent": "Holdout", "variants": "Variants", "data": "Custom data", "form": "Campaign", "version": "Version"]
        if let name = names[field] { return name }
        if field.hasPrefix("variant_") { return "Variant \((Int(field.split(separator: "_").last ?? "") ?? 0) + 1)" }
        return field.replacingOccurrences(of: "_", with: " ").capitalized
    }
}
