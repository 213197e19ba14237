import Foundation
import HeraldCore
/// The composer form's fields as typed (a failed save shows them unchanged), with the choices of
/// each radio group and select. The posted field names stay snake_case in the template; these are
/// only the values.
struct ComposerFields: Sendable {
    /// An A/B variant's row, with its errors beside each of its fields.
    struct VariantRow: Sendable {
        /// The row's number in the posted names (`variant_key_3`); "__ID__" in the script's blank copy.
        let index: String
        /// The row's number in the page's digits ("Variant ۲" while it has no key).
        let number: String
        let key: String
        let weight: String
        let title: String
        let body: String
        let image: String
        let translations: String
        let translationsErrors: [String]
        let translationsInvalid: Bool
        let data: [DataRow]
        let dataPrefix: String
        let keyErrors: [String]
        let weightErrors: [String]
        let titleErrors: [String]
        let bodyErrors: [String]
        let imageErrors: [String]
        let dataErrors: [String]
        let keyInvalid: Bool
        let weightInvalid: Bool
        let titleInvalid: Bool
        let bodyInvalid: Bool
        let imageInvalid: Bool
        let multilineTitle: Bool
        /// Open when it has an image or data, or an error in them.
        let moreOpen: Bool

        /// What this variant shows: its own title and text, else the notification's.
        let previewTitle: String
        let previewBody: String

        init(number: Int, _ row: CampaignForm.VariantRow, _ errors: FormErrors, index: String? = nil,
             inheriting base: (title: String, body: String) = ("", ""), words: Localized) {
            previewTitle = row.title.isEmpty ? base.title : row.title
            previewBody = row.body.isEmpty ? base.body : row.body
            self.index = index ?? String(row.id)
            self.number = words.number(number)
            key = row.key
            weight = row.weight
            title = row.title
            body = row.body
            image = row.image
            translations = row.translations
            translationsErrors = errors["variant_translations_\(row.id)"]
            translationsInvalid = !translationsErrors.isEmpty
            let prefix = "variant_\(self.index)_data"
            data = row.data.enumerated().map { DataRow(prefix: prefix, index: String($1.id), number: $0 + 1, key: $1.key, value: $1.value, words: words) }
            dataPrefix = prefix
            keyErrors = errors["variant_key_\(row.id)"]
            weightErrors = errors["variant_weight_\(row.id)"]
            titleErrors = errors["variant_title_\(row.id)"]
            bodyErrors = errors["variant_body_\(row.id)"]
            imageErrors = errors["variant_image_\(row.id)"]
            dataErrors = errors["variant_data_\(row.id)"]
            keyInvalid = !keyErrors.isEmpty
            weightInvalid = !weightErrors.isEmpty
            titleInvalid = !titleErrors.isEmpty
            bodyInvalid = !bodyErrors.isEmpty
            imageInvalid = !imageErrors.isEmpty
            multilineTitle = row.title.contains("\n")
            moreOpen = !row.image.isEmpty || row.data.contains { !$0.isBlank } || imageInvalid || !dataErrors.isEmpty
        }
    }

    /// A custom data key and value; a value with a line break is shown in a text area, which keeps it.
    struct DataRow: Sendable {
        /// The posted names are `<prefix>_key_<index>` and `<prefix>_value_<index>`.
        let prefix: String
        let index: String
        /// The row's number in the page's digits, for its labels ("Key ۱").
        let number: String
        let key: String
        let value: String
        let multiline: Bool

        init(prefix: String, index: String, number: Int, key: String, value: String, words: Localized) {
            self.prefix = prefix
            self.index = index
            self.number = words.number(number)
            self.key = key
            self.value = value
            multiline = value.contains("\n")
        }
    }

    /// Every IANA zone the system knows, for the searchable zone field.
    static let timeZones: [String] = ["UTC"] + TimeZone.knownTimeZoneIdentifiers.filter { $0 != "UTC" }.sorted()

    let name: String
    let title: String
    let body: String
    let imageURL: String
    let dataOnly: Bool
    let dataOnlyWarnings: [String]
    /// The message type: a notification (neither of the others), data only, or a Live Activity.
    let notificationKind: Bool
    let liveActivityKind: Bool
    let liveActivityEvents: [Choice]
    let liveActivityState: String
    let liveActivityDismissal: String
    /// The `aps` each device's activity would receive if sent now (nil until the state is JSON).
    let apsPreview: String?
    let targetTopics: Bool
    let targetCondition: Bool
    let targetSegment: Bool
    let targetTokens: Bool
    let topics: String
    let condition: String
    let translations: String
    let translationsOpen: Bool
    let segment: String
    let tokens: String
    let scheduleAt: String
    let scheduleTime: String
    let scheduleUntil: String
    let holdoutPercent: String
    let version: Int
    let scheduleKinds: [Choice]
    let timeZone: String
    let timeZones: [String]
    let days: [Choice]
    let variants: [VariantRow]
    let canAddVariant: Bool
    let variantTemplate: VariantRow
    let dataTemplate: DataRow
    let maximumVariants = CampaignLimits.variants
    /// "Up to 10 variants."
    let variantsHint: String
    let data: [DataRow]
    let multilineTitle: Bool
    let priorities: [Choice]
    /// How the messages are labelled for FCM's delivery reports (`options.labels`).
    let labelModes: [Choice]
    let androidChannelID: String
    let sound: String
    let icon: String
    let color: String
    let clickAction: String
    let iosBadge: String
    let iosSound: String
    let iosCategory: String
    let webLink: String
    let expirySeconds: String
    let webIcon: String
    let analyticsLabel: String
    let collapseKey: String
    let overrides: String
    /// Open when any option is set or wrong, so nothing stored is hidden.
    let optionsOpen: Bool
    let delivery: DeliveryFormFields
    /// Open when a delivery control or the automatic winner is set or wrong.
    let deliveryOpen: Bool
    let winnerMetrics: [Choice]
    let winnerConfidences: [Choice]
    let winnerFallbacks: [Choice]
    let recipientTimes: [Choice]

    init(_ form: CampaignForm, _ errors: FormErrors = FormErrors(), words: Localized) {
        variantsHint = words.text("composer.variants_hint", words.number(CampaignLimits.variants))
        name = form.name
        title = form.title
        body = form.body
        imageURL = form.imageURL
        dataOnly = form.isDataOnly
        dataOnlyWarnings = form.dataOnlyWarnings(words)
        notificationKind = !form.isDataOnly && !form.isLiveActivity
        liveActivityKind = form.isLiveActivity
        liveActivityEvents = LiveActivity.Event.allCases.map {
            Choice($0.rawValue, text: words.text("composer.live_activity.event.\($0.rawValue)"), selected: form.liveActivity.event == $0.rawValue)
        }
        liveActivityState = form.liveActivity.contentState
        liveActivityDismissal = form.liveActivity.dismissalDate
        apsPreview = form.isLiveActivity
            ? form.liveActivity.apsPreview(title: form.title, body: form.body, sound: form.options["ios_sound"].flatMap { $0.isEmpty ? nil : $0 } ?? form.options["sound"] ?? "", now: Date())
            : nil
        targetTopics = form.targetKind == "topics"
        targetCondition = form.targetKind == "condition"
        targetSegment = form.targetKind == "segment"
        targetTokens = form.targetKind == "tokens"
        topics = form.topics
        condition = form.condition
        translations = form.translations
        translationsOpen = !form.translations.isEmpty || !errors["translations"].isEmpty
        segment = form.segment
        tokens = form.tokens
        scheduleAt = form.scheduleAt
        scheduleTime = form.scheduleTime
        scheduleUntil = form.scheduleUntil
        holdoutPercent = form.holdoutPercent
        version = form.version ?? 0
        scheduleKinds = ["none", "now", "once", "daily", "weekly"].map {
            Choice($0, text: words.text("composer.schedule_kind.\($0)"), selected: form.scheduleKind == $0)
        }
        timeZone = form.timeZone
        timeZones = Self.timeZones
        days = CampaignForm.weekdays.map {
            Choice($0, text: words.text("composer.day.\($0)"), selected: form.scheduleDays.contains($0))
        }
        variants = form.variants.enumerated().map { VariantRow(number: $0 + 1, $1, errors, inheriting: (form.title, form.body), words: words) }
        canAddVariant = form.variants.count < CampaignLimits.variants
        data = form.data.enumerated().map { DataRow(prefix: "data", index: String($1.id), number: $0 + 1, key: $1.key, value: $1.value, words: words) }
        // Blank copies the script clones to add a row at once (without it, a button posts for one).
        var blank = CampaignForm.VariantRow(id: 0)
        blank.data = [CampaignForm.DataRow(id: 0)]
        variantTemplate = VariantRow(number: 0, blank, FormErrors(), index: "__ID__", words: words)
        dataTemplate = DataRow(prefix: "__PREFIX__", index: "__ROW__", number: 0, key: "", value: "", words: words)
        multilineTitle = form.title.contains("\n")
        priorities = [("", "default"), ("high", "high"), ("normal", "normal")].map {
            Choice($0, text: words.text("composer.priority.\($1)"), selected: (form.options["priority"] ?? "") == $0)
        }
        labelModes = ([""] + LabelMode.allCases.filter { $0 != .auto }.map(\.rawValue)).map {
            Choice($0, text: words.text("composer.labels.\($0.isEmpty ? "auto" : $0)"), selected: (form.options["labels"] ?? "") == $0)
        } + ((form.options["labels"] ?? "") == LabelMode.auto.rawValue ? [Choice("auto", text: words.text("composer.labels.auto"), selected: true)] : [])
        func option(_ field: String) -> String { form.options[field] ?? "" }
        androidChannelID = option("android_channel_id")
        sound = option("sound")
        icon = option("icon")
        color = option("color")
        clickAction = option("click_action")
        iosBadge = option("ios_badge")
        iosSound = option("ios_sound")
        iosCategory = option("ios_category")
        webLink = option("web_link")
        expirySeconds = option("expiry_seconds")
        webIcon = option("web_icon")
        analyticsLabel = option("analytics_label")
        collapseKey = option("collapse_key")
        overrides = form.overrides
        delivery = form.delivery
        deliveryOpen = form.delivery.isSet || errors.order.contains { field in DeliveryFormFields.fields.contains { $0.field == field } }
        winnerMetrics = ["opens", "conversions"].map {
            Choice($0, text: words.text("composer.winner.\($0)"), selected: form.delivery.winnerMetric == $0)
        }
        winnerConfidences = WinnerRule.confidences.map {
            Choice(String($0), text: words.percent(whole: $0), selected: form.delivery.winnerConfidence == String($0))
        }
        winnerFallbacks = ["baseline", "none"].map {
            Choice($0, text: words.text("composer.winner.\($0)"), selected: form.delivery.winnerFallback == $0)
        }
        recipientTimes = [("", "off"), ("skip", "skip"), ("send", "send")].map {
            Choice($0, text: words.text("composer.recipient_time.\($1)"), selected: form.delivery.recipientTime == $0)
        }
        optionsOpen = CampaignForm.optionFields.contains { !option($0).isEmpty } || !form.overrides.isEmpty
            || errors.order.contains { CampaignForm.optionFields.contains($0) || $0 == "overrides" || $0 == "data" }
    }
}
