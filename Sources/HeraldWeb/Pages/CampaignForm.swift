import FCMMessage
import HeraldCore
import HeraldJSON

/// The composer's form: every field exactly as typed, so a failed save re-renders it unchanged.
/// It holds everything the campaign contract can say (up to 10 variants with their own text,
/// image and data; every option; the raw overrides), so a campaign made over the API and saved
/// in the browser without a change comes back byte for byte (`CampaignForm+Contract.swift`).
///
/// Rows (variants, data pairs) are numbered by the posted field names (`variant_key_3`); the
/// numbers need not be contiguous, since a script may remove a row from the middle.
struct CampaignForm: Sendable, Equatable {
    static let optionFields = ["android_channel_id", "priority", "sound", "icon", "web_icon", "color", "click_action",
                               "ios_badge", "ios_sound", "ios_category", "web_link", "expiry_seconds",
                               "analytics_label", "labels", "collapse_key"]
    static let integerOptions: Set<String> = ["ios_badge", "expiry_seconds"]
    static let weekdays = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    /// Empty rows offered beside the stored ones, so a pair can be added without a round trip.
    static let spareDataRows = 2
    static let spareVariantDataRows = 1
    /// Variant rows a new campaign starts with (an A and a B to fill in, or leave blank).
    static let startingVariantRows = 2

    struct DataRow: Sendable, Equatable {
        var id: Int
        var key = "", value = ""
        var isBlank: Bool { key.isEmpty && value.isEmpty }
    }

    struct VariantRow: Sendable, Equatable {
        var id: Int
        var key = "", weight = "", title = "", body = "", image = ""
        var data: [DataRow] = []
        /// The variant's text in other languages, as JSON (`{"fa": {"title": …, "body": …}}`).
        var translations = ""
        var isBlank: Bool {
            key.isEmpty && title.isEmpty && body.isEmpty && image.isEmpty && data.allSatisfy(\.isBlank) && translations.isEmpty
        }
    }

    var name = "", title = "", body = "", imageURL = ""
    /// The text in other languages, as JSON (`{"fa": {"title": …, "body": …}}`); devices get their language's.
    var translations = ""
    /// "notification" (shown to the user), "data" (data only: a silent message the app handles) or
    /// "live_activity" (an update or end of each device's Live Activity, the title and text its alert).
    var messageKind = "notification"
    var targetKind = "topics", topics = "", condition = "", segment = "", tokens = ""
    /// none (keep as a draft), now, once, daily or weekly.
    var scheduleKind = "none", scheduleAt = "", scheduleTime = "", scheduleUntil = "", timeZone = "UTC"
    var scheduleDays: [String] = []
    var variants: [VariantRow] = []
    var holdoutPercent = ""
    var options: [String: String] = [:]
    /// The raw per-platform overrides as JSON text (`{"android": {…}, "apns": {…}, "webpush": {…}}`).
    var overrides = ""
    var data: [DataRow] = []
    /// The version the author started from; nil for a new campaign, or when the form did not say
    /// (an edit without it is refused, not taken as version 0).
    var version: Int?
    /// Spread, sending hours, latest-delivery time and the automatic winner.
    var delivery = DeliveryFormFields()
    /// The Live Activity's event, content state and dismissal date (kept whatever the message type).
    var liveActivity = LiveActivityFormFields()

    /// A new campaign's empty form.
    static func blank(timeZone: String = "UTC") -> CampaignForm {
        var form = CampaignForm(fields: [("time_zone", timeZone)])
        form.padRows()
        return form
    }

    /// Reads the posted fields; unknown names are ignored (the CSRF token, the submit button).
    init(fields: [(name: String, value: String)]) {
        let posted = FormValues(fields)
        let value = posted.value, multiline = posted.multiline, rows = posted.rows
        name = value("name"); title = multiline("title"); body = multiline("body"); imageURL = value("image_url")
        translations = multiline("translations")
        messageKind = ["data", "live_activity"].contains(value("message_kind")) ? value("message_kind") : "notification"
        targetKind = ["condition", "segment", "tokens"].contains(value("target_kind")) ? value("target_kind") : "topics"
        topics = value("topics"); condition = value("condition"); segment = value("segment"); tokens = multiline("tokens")
        scheduleKind = ["now", "once", "daily", "weekly"].contains(value("schedule_kind")) ? value("schedule_kind") : "none"
        scheduleAt = value("schedule_at"); scheduleTime = value("schedule_time"); scheduleUntil = value("schedule_until")
        timeZone = value("time_zone")
        scheduleDays = Self.weekdays.filter { day in fields.contains { $0.name == "schedule_days" && $0.value == day } }
        variants = rows("variant_key_").map { id in
            VariantRow(
                id: id, key: value("variant_key_\(id)"), weight: value("variant_weight_\(id)"),
                title: multiline("variant_title_\(id)"), body: multiline("variant_body_\(id)"), image: value("variant_image_\(id)"),
                data: rows("variant_\(id)_data_key_").map { row in
                    DataRow(id: row, key: value("variant_\(id)_data_key_\(row)"), value: multiline("variant_\(id)_data_value_\(row)"))
                }, translations: multiline("variant_translations_\(id)"))
        }
        holdoutPercent = value("holdout_percent")
        for field in Self.optionFields { options[field] = value(field) }
        overrides = multiline("overrides")
        data = rows("data_key_").map { DataRow(id: $0, key: value("data_key_\($0)"), value: multiline("data_value_\($0)")) }
        version = Int(value("version"))
        delivery = DeliveryFormFields(value)
        liveActivity = LiveActivityFormFields(value)
    }

    /// The form showing a stored campaign, with spare rows to add to.
    init(spec: CampaignSpec, version: Int) {
        name = spec.name
        title = spec.notification?.title ?? ""; body = spec.notification?.body ?? ""; imageURL = spec.notification?.image ?? ""
        translations = Self.translationsText(spec.notification)
        switch spec.audience {
        case .topics(let list): targetKind = "topics"; topics = list.joined(separator: ", ")
        case .condition(let text): targetKind = "condition"; condition = text
        case .segment(let id): targetKind = "segment"; segment = id.description
        case .tokens(let list): targetKind = "tokens"; tokens = list.joined(separator: "\n")
        }
        if let schedule = spec.schedule?.toJSON().objectValue {
            scheduleKind = schedule["kind"]?.stringValue ?? "none"
            scheduleAt = schedule["at"]?.stringValue ?? ""
            scheduleTime = schedule["time"]?.stringValue ?? ""
            scheduleUntil = schedule["until"]?.stringValue ?? ""
            timeZone = schedule["time_zone"]?.stringValue ?? "UTC"
            scheduleDays = (schedule["days"]?.arrayValue ?? []).compactMap(\.stringValue)
        }
        let shown = spec.notification != nil || spec.variants.contains { $0.notification != nil }
        messageKind = spec.liveActivity != nil ? "live_activity" : shown ? "notification" : "data"
        liveActivity = spec.liveActivity.map(LiveActivityFormFields.init) ?? LiveActivityFormFields()
        variants = spec.variants.enumerated().map { index, variant in
            VariantRow(id: index, key: variant.key, weight: String(variant.weight), title: variant.notification?.title ?? "",
                       body: variant.notification?.body ?? "", image: variant.notification?.image ?? "",
                       data: Self.rows(variant.data), translations: Self.translationsText(variant.notification))
        }
        holdoutPercent = spec.holdoutPercent == 0 ? "" : String(spec.holdoutPercent)
        let stored = spec.options.toJSON().objectValue ?? [:]
        for field in Self.optionFields {
            switch stored[field] {
            case .string(let text): options[field] = text
            case .number(let number): options[field] = String(Int(number))
            default: options[field] = ""
            }
        }
        overrides = stored["overrides"]?.prettyString() ?? ""
        data = Self.rows(spec.data)
        delivery = DeliveryFormFields(spec)
        self.version = version
        padRows()
    }

    var isDataOnly: Bool { messageKind == "data" }
    var isLiveActivity: Bool { messageKind == "live_activity" }

    /// What the author should know about a data-only message before sending it (not errors: a
    /// campaign made over the API that says these things still saves unchanged).
    func dataOnlyWarnings(_ words: Localized) -> [String] {
        guard isDataOnly else { return [] }
        var warnings: [String] = []
        if (options["priority"] ?? "").isEmpty {
            warnings.append(words.text("composer.warning.no_priority"))
        }
        let display = ["ios_badge", "sound", "ios_sound", "click_action", "ios_category", "icon", "color"]
            .filter { !(options[$0] ?? "").trimmingSpaces.isEmpty }.map { words.text("composer.warning.option.\($0)") }
        if !display.isEmpty {
            warnings.append(words.text("composer.warning.not_silent", display.joined(separator: words.text("list.separator"))))
        }
        return warnings
    }

    static func rows(_ map: StringMap) -> [DataRow] {
        map.keys.enumerated().map { DataRow(id: $0, key: $1, value: map[$1] ?? "") }
    }

    /// Blank rows after the filled ones, so there is room to add without a round trip.
    mutating func padRows() {
        func nextID(_ rows: [DataRow]) -> Int { (rows.map(\.id).max() ?? -1) + 1 }
        while data.filter(\.isBlank).count < Self.spareDataRows { data.append(DataRow(id: nextID(data))) }
        if variants.isEmpty { variants = (0..<Self.startingVariantRows).map { VariantRow(id: $0) } }
        for index in variants.indices where !variants[index].data.contains(where: \.isBlank) {
            for _ in 0..<Self.spareVariantDataRows { variants[index].data.append(DataRow(id: nextID(variants[index].data))) }
        }
    }

    // MARK: - Editing the rows without JavaScript

    /// What a composer button other than Save asks for: the same form with a row more or less.
    enum RowEdit: Equatable {
        case addVariant, removeVariant(Int), addData, addVariantData(Int)

        /// The edit a submit button's `action` value names (`remove_variant:3`), if any.
        init?(action: String) {
            let parts = action.split(separator: ":", maxSplits: 1).map(String.init)
            let row = parts.count == 2 ? Int(parts[1]) : nil
            switch (parts.first ?? "", row) {
            case ("add_variant", nil): self = .addVariant
            case ("add_data", nil): self = .addData
            case ("remove_variant", let row?): self = .removeVariant(row)
            case ("add_variant_data", let row?): self = .addVariantData(row)
            default: return nil
            }
        }
    }

    /// Applies `edit`; false when it cannot (the tenth variant is the last).
    @discardableResult
    mutating func apply(_ edit: RowEdit) -> Bool {
        switch edit {
        case .addVariant:
            guard variants.count < CampaignLimits.variants else { return false }
            var row = VariantRow(id: (variants.map(\.id).max() ?? -1) + 1)
            row.data = [DataRow(id: 0)]
            variants.append(row)
        case .removeVariant(let id):
            variants.removeAll { $0.id == id }
        case .addData:
            data.append(DataRow(id: (data.map(\.id).max() ?? -1) + 1))
        case .addVariantData(let id):
            guard let index = variants.firstIndex(where: { $0.id == id }) else { return false }
            variants[index].data.append(DataRow(id: (variants[index].data.map(\.id).max() ?? -1) + 1))
        }
        return true
    }
}

/// Error messages by form field, in the order found.
struct FormErrors: Error, Sendable, Equatable {
    private(set) var byField: [String: [String]] = [:]
    private(set) var order: [String] = []

    mutating func add(_ field: String, _ message: String) {
        if byField[field] == nil { order.append(field) }
        byField[field, default: []].append(message)
    }

    mutating func add(_ other: FormErrors) {
        for field in other.order { for message in other[field] { add(field, message) } }
    }

    var isEmpty: Bool { byField.isEmpty }
    subscript(field: String) -> [String] { byField[field] ?? [] }

    /// A form's verdict: what the contract read from it when neither the form (these errors) nor
    /// the contract found a problem, else every problem, the contract's under the field `field`
    /// names for its JSON path, in the page's language.
    func verdict<Value>(_ parsed: Result<Value, ValidationErrors>, field: (String) -> String, words: Localized) -> Result<Value, FormErrors> {
        switch parsed {
        case .success(let value) where isEmpty:
            return .success(value)
        case .success:
            return .failure(self)
        case .failure(let failure):
            var errors = self
            for error in failure.errors { errors.add(field(error.path), words.fieldError(error)) }
            return .failure(errors)
        }
    }
}
