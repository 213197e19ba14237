import Foundation
import HeraldApp
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
    let budget: BudgetView
    let imageLimitKB = ImageInspector.maximumBytes / 1024
    let preview: NotificationPreview
    let campaignID: String?
    let status: String?
    let statusText: String?
    let conflict: ConflictView?
    /// The saved segments to target, the chosen one selected, each with its reach now.
    let segments: [Choice]
    let hasSegments: Bool
    /// Mustache's own braces, so the hint shows them from a value rather than a template trick.
    let variableExample = "{{first_name | default: \"friend\"}}"

    init(chrome: PageChrome, form: CampaignForm, errors: FormErrors, campaignID: String?, status: CampaignStatus?,
         conflict: ConflictView? = nil, segments: [(segment: Segment, devices: Int)] = []) {
        self.chrome = chrome
        self.segments = segments.map { Choice($0.segment.id, text: "\($0.segment.name) (\($0.devices) active device\($0.devices == 1 ? "" : "s"))",
                                              selected: $0.segment.id == form.segment) }
        hasSegments = !segments.isEmpty
        self.form = ComposerFields(form, errors)
        self.errors = ComposerErrors(errors)
        hasErrors = !errors.isEmpty
        severalErrors = errors.order.count > 1
        errorSummary = errors.order.flatMap { field in
            errors[field].map { ErrorLine(field: field, label: Self.label(field, in: form), message: $0) }
        }
        budget = BudgetView(form)
        action = campaignID.map { "/campaigns/\($0)" } ?? "/campaigns"
        isNew = campaignID == nil
        preview = NotificationPreview(title: form.title, body: form.body, imageURL: form.imageURL,
                                      color: form.options["color"] ?? "", icon: form.options["icon"] ?? "")
        self.campaignID = campaignID
        self.status = status?.rawValue
        statusText = status.map(CampaignPages.statusText)
        self.conflict = conflict
    }

    /// A person's name for a form field, for the error summary.
    static func label(_ field: String, in form: CampaignForm) -> String {
        let names = ["name": "Campaign name", "title": "Title", "body": "Text", "image_url": "Image URL", "message_kind": "Message type", "image_file": "Image upload",
                     "topics": "Topics", "condition": "Condition", "segment": "Segment", "tokens": "Registration tokens", "translations": "Text in other languages", "schedule_kind": "Schedule", "schedule_at": "Date and time",
                     "schedule_time": "Time of day", "schedule_until": "Until", "time_zone": "Time zone", "schedule_days": "Days",
                     "holdout_percent": "Holdout", "variants": "Variants", "data": "Custom data", "form": "Campaign", "version": "Version",
                     "android_channel_id": "Android channel", "priority": "Priority", "sound": "Android sound", "icon": "Android icon",
                     "web_icon": "Web icon URL", "color": "Android color", "click_action": "Click action", "ios_badge": "iOS badge",
                     "ios_sound": "iOS sound", "ios_category": "iOS category", "web_link": "Web link", "expiry_seconds": "Expiry",
                     "analytics_label": "Analytics label", "collapse_key": "Collapse key", "overrides": "Platform overrides",
                     "options": "Additional options"]
        if let name = names[field] { return name }
        // variant_<part>_<row>: name the variant by its key, as the author wrote it.
        if field.hasPrefix("variant_"), let id = Int(field.split(separator: "_").last ?? ""),
           let position = form.variants.firstIndex(where: { $0.id == id }) {
            let key = form.variants[position].key
            let part = ["key": "key", "weight": "weight", "title": "title", "body": "text", "image": "image", "data": "custom data"][
                String(field.split(separator: "_")[1])] ?? ""
            return "Variant \(key.isEmpty ? String(position + 1) : key) \(part)".trimmingCharacters(in: .whitespaces)
        }
        return field.replacingOccurrences(of: "_", with: " ").capitalized
    }
}
