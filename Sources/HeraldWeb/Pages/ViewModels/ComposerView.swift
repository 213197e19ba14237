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
    /// "PNG, JPEG or GIF, at most 1024 KB (…)".
    let imageHint: String
    /// The steps' numbers in the page's digits, by position ("1" … "6").
    let numbers: [String: String]
    /// "The campaign was not saved: please fix this field" (or "these fields").
    let errorHeading: String
    let preview: NotificationPreview
    let campaignID: String?
    let status: String?
    let statusText: String?
    let conflict: ConflictView?
    /// A saved segment to target, with its reach now.
    struct SegmentChoice: Sendable {
        let value: String
        let text: String
        let selected: Bool
        let reach: Int
    }

    /// The saved segments to target, the chosen one selected, each with its reach now.
    let segments: [SegmentChoice]
    let hasSegments: Bool
    /// With a segment and A/B variants or a holdout: how its devices split ("A ≈ 450, B ≈ 450,
    /// holdout ≈ 100"); the composer's script keeps it current as weights change.
    let armReach: String?
    /// What the contact policy (control group, caps) leaves of the chosen segment, when it changes anything.
    var contactReach: String? = nil
    /// Mustache's own braces, so the hint shows them from a value rather than a template trick.
    let variableExample = "{{first_name | default: \"friend\"}}"

    init(chrome: PageChrome, form: CampaignForm, errors: FormErrors, campaignID: String?, status: CampaignStatus?,
         conflict: ConflictView? = nil, segments: [(segment: Segment, devices: Int)] = []) {
        let words = chrome.words
        self.chrome = chrome
        imageHint = words.text("composer.image_hint", words.number(ImageInspector.maximumBytes / 1024))
        numbers = Dictionary(uniqueKeysWithValues: (1...6).map { (String($0), words.number($0)) })
        self.segments = segments.map {
            SegmentChoice(value: $0.segment.id.description, text: words.text("composer.segment_choice", $0.segment.name, words.number($0.devices)),
                          selected: $0.segment.id.description == form.segment, reach: $0.devices)
        }
        hasSegments = !segments.isEmpty
        let reach = form.targetKind == "segment" ? segments.first { $0.segment.id.description == form.segment }?.devices : nil
        armReach = reach.flatMap { Self.armReach(of: form, devices: $0, words: words) }
        self.form = ComposerFields(form, errors, words: words)
        self.errors = ComposerErrors(errors)
        hasErrors = !errors.isEmpty
        severalErrors = errors.order.count > 1
        errorHeading = words.text(severalErrors ? "composer.errors.heading_many" : "composer.errors.heading_one")
        errorSummary = errors.order.flatMap { field in
            errors[field].map { ErrorLine(field: field, label: Self.label(field, in: form, words: words), message: $0) }
        }
        budget = BudgetView(form, words: words)
        action = campaignID.map { "/campaigns/\($0)" } ?? "/campaigns"
        isNew = campaignID == nil
        preview = NotificationPreview(title: form.title, body: form.body, imageURL: form.imageURL,
                                      color: form.options["color"] ?? "", icon: form.options["icon"] ?? "", words: words)
        self.campaignID = campaignID
        self.status = status?.rawValue
        statusText = status.map(words.statusText)
        self.conflict = conflict
    }

    /// How `devices` split between the form's variants and its holdout; nil when nothing splits them.
    static func armReach(of form: CampaignForm, devices: Int, words: Localized) -> String? {
        // A row not filled in yet (no key) is no variant: it showed as "? ≈ 0".
        let filled = form.variants.filter { !$0.key.trimmingCharacters(in: .whitespaces).isEmpty }
        let variants = filled.isEmpty ? [("A", 100)] : filled.map { ($0.key, Int($0.weight) ?? 0) }
        let holdout = min(max(Int(form.holdoutPercent) ?? 0, 0), CampaignLimits.holdoutPercentBound - 1)
        guard variants.count > 1 || holdout > 0 else { return nil }
        let shares = DevicePlanner.shares(weights: variants.map(\.1), holdoutPercent: holdout)
        func about(_ share: Double) -> String { words.number(Int((share * Double(devices)).rounded())) }
        var parts = zip(variants, shares.variants).map { words.text("composer.arm_reach.variant", $0.0.0, about($0.1)) }
        if holdout > 0 { parts.append(words.text("composer.arm_reach.holdout", about(shares.holdout))) }
        return words.text("composer.arm_reach", parts.joined(separator: words.text("list.separator")))
    }

    /// The form's fields with a name of their own in the tables (`field.<name>`).
    static let labelledFields: Set<String> = [
        "name", "title", "body", "image_url", "message_kind", "image_file", "topics", "condition", "segment", "tokens", "translations",
        "schedule_kind", "schedule_at",
        "schedule_time", "schedule_until", "time_zone", "schedule_days", "holdout_percent", "variants", "data", "form", "version",
        "android_channel_id", "priority", "sound", "icon", "web_icon", "color", "click_action", "ios_badge", "ios_sound",
        "ios_category", "web_link", "expiry_seconds", "analytics_label", "labels", "collapse_key", "overrides", "options",
        "live_activity_event", "live_activity_state", "live_activity_dismissal",
    ]

    /// A person's name for a form field, for the error summary.
    static func label(_ field: String, in form: CampaignForm, words: Localized) -> String {
        if labelledFields.contains(field) { return words.text("field.\(field)") }
        // variant_<part>_<row>: name the variant by its key, as the author wrote it.
        if field.hasPrefix("variant_"), let id = Int(field.split(separator: "_").last ?? ""),
           let position = form.variants.firstIndex(where: { $0.id == id }) {
            let key = form.variants[position].key
            let part = String(field.split(separator: "_")[1])
            let name = key.isEmpty ? words.number(position + 1) : key
            return ["key", "weight", "title", "body", "image", "data"].contains(part)
                ? words.text("field.variant.\(part)", name) : words.text("field.variant", name)
        }
        return field.replacingOccurrences(of: "_", with: " ").capitalized
    }
}
