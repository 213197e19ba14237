import HeraldCore
import HeraldJSON

/// The composer's form: every field exactly as typed, so a failed save re-renders it unchanged.
/// `parse` turns it into the campaign JSON contract and lets `CampaignSpec.parse` judge it; each
/// error's JSON path is mapped back to the field that caused it (`errors[field]`).
struct CampaignForm: Sendable, Equatable {
    static let variantRows = 4
    static let dataRows = 5
    static let optionFields = ["android_channel_id", "priority", "sound", "icon", "color", "click_action",
                               "ios_badge", "ios_sound", "ios_category", "web_link", "expiry_seconds"]
    static let integerOptions: Set<String> = ["ios_badge", "expiry_seconds"]
    static let weekdays = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]

    struct VariantRow: Sendable, Equatable { var key = "", weight = "", title = "", body = "" }
    struct DataRow: Sendable, Equatable { var key = "", value = "" }

    var name = "", title = "", body = "", imageURL = ""
    var targetKind = "topics", topics = "", condition = ""
    /// none (keep as a draft), now, once, daily or weekly.
    var scheduleKind = "none", scheduleAt = "", scheduleTime = "", scheduleUntil = "", timeZone = "UTC"
    var scheduleDays: [String] = []
    var variants = [VariantRow](repeating: VariantRow(), count: variantRows)
    var holdoutPercent = ""
    var options: [String: String] = [:]
    var data = [DataRow](repeating: DataRow(), count: dataRows)
    /// The version the author started from (0 for a new campaign).
    var version = 0

    /// Reads the posted fields; unknown names are ignored (the CSRF token, the submit button).
    init(fields: [(name: String, value: String)]) {
        func value(_ name: String) -> String { fields.last { $0.name == name }?.value ?? "" }
        name = value("name"); title = value("title"); body = value("body"); imageURL = value("image_url")
        targetKind = value("target_kind") == "condition" ? "condition" : "topics"
        topics = value("topics"); condition = value("condition")
        scheduleKind = ["now", "once", "daily", "weekly"].contains(value("schedule_kind")) ? value("schedule_kind") : "none"
        scheduleAt = value("schedule_at"); scheduleTime = value("schedule_time"); scheduleUntil = value("schedule_until")
        timeZone = value("time_zone")
        scheduleDays = Self.weekdays.filter { day in fields.contains { $0.name == "schedule_days" && $0.value == day } }
        for index in 0..<Self.variantRows {
            variants[index] = VariantRow(key: value("variant_key_\(index)"), weight: value("variant_weight_\(index)"),
                                         title: value("variant_title_\(index)"), body: value("variant_body_\(index)"))
        }
        holdoutPercent = value("holdout_percent")
        for field in Self.optionFields { options[field] = value(field) }
        for index in 0..<Self.dataRows {
            data[index] = DataRow(key: value("data_key_\(index)"), value: value("data_value_\(index)"))
        }
        version = Int(value("version")) ?? 0
    }

    /// The form showing a stored campaign.
    init(spec: CampaignSpec, version: Int) {
        name = spec.name
        title = spec.notification?.title ?? ""; body = spec.notification?.body ?? ""; imageURL = spec.notification?.image ?? ""
        switch spec.audience {
        case .topics(let list): targetKind = "topics"; topics = list.joined(separator: ", ")
        case .condition(let text): targetKind = "condition"; condition = text
        }
        if let schedule = spec.schedule?.toJSON().objectValue {
            scheduleKind = schedule["kind"]?.stringValue ?? "none"
            scheduleAt = schedule["at"]?.stringValue ?? ""
            scheduleTime = schedule["time"]?.stringValue ?? ""
            scheduleUntil = schedule["until"]?.stringValue ?? ""
            timeZone = schedule["time_zone"]?.stringValue ?? "UTC"
            scheduleDays = (schedule["days"]?.arrayValue ?? []).compactMap(\.stringValue)
        }
        for (index, variant) in spec.variants.prefix(Self.variantRows).enumerated() {
            variants[index] = VariantRow(key: variant.key, weight: String(variant.weight),
                                         title: variant.notification?.title ?? "", body: variant.notification?.body ?? "")
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
        for (index, key) in spec.data.keys.prefix(Self.dataRows).enumerated() {
            data[index] = DataRow(key: key, value: spec.data[key] ?? "")
        }
        self.version = version
    }

    /// The campaign, or every error keyed by form field ("form" for those without one).
    func parse() -> Result<CampaignSpec, FormErrors> {
        var errors = FormErrors()
        let json = contractJSON(errors: &errors)
        switch CampaignSpec.parse(json) {
        case .success(let spec) where errors.isEmpty:
            return .success(spec)
        case .success:
            return .failure(errors)
        case .failure(let failure):
            for error in failure.errors { errors.add(Self.field(for: error.path), error.message) }
            return .failure(errors)
        }
    }

    /// The campaign JSON contract built from the fields; blank fields are left out.
    func contractJSON(errors: inout FormErrors) -> JSON {
        var object: JSONObject = ["name": .string(name)]
        var notification = JSONObject()
        if !title.isEmpty { notification["title"] = .string(title) }
        if !body.isEmpty { notification["body"] = .string(body) }
        if !imageURL.isEmpty { notification["image"] = .string(imageURL) }
        if !notification.isEmpty { object["notification"] = .object(notification) }
        if targetKind == "condition" {
            object["condition"] = .string(condition)
        } else {
            let list = topics.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\n" || $0 == "\r" }).map { JSON.string(String($0)) }
            if list.isEmpty { errors.add("topics", "name at least one topic, such as news") }
            object["topics"] = .array(list)
        }
        var dataObject = JSONObject()
        for row in data where !row.key.isEmpty || !row.value.isEmpty { dataObject[row.key] = .string(row.value) }
        if !dataObject.isEmpty { object["data"] = .object(dataObject) }
        var optionObject = JSONObject()
        for field in Self.optionFields {
            let text = (options[field] ?? "").trimmingSpaces
            guard !text.isEmpty else { continue }
            if Self.integerOptions.contains(field) {
                guard let number = Int(text) else { errors.add(field, "must be a whole number"); continue }
                optionObject[field] = .number(Double(number))
            } else {
                optionObject[field] = .string(text)
            }
        }
        if !optionObject.isEmpty { object["options"] = .object(optionObject) }
        var variantList: [JSON] = []
        for (index, row) in variants.enumerated() where !row.key.isEmpty || !row.title.isEmpty || !row.body.isEmpty {
            var variant: JSONObject = ["key": .string(row.key)]
            if let weight = Int(row.weight.trimmingSpaces) { variant["weight"] = .number(Double(weight)) } else {
                errors.add("variant_weight_\(index)", "the weight is a whole number such as 50")
                variant["weight"] = 1
            }
            var content = JSONObject()
            if !row.title.isEmpty { content["title"] = .string(row.title) }
            if !row.body.isEmpty { content["body"] = .string(row.body) }
            if !content.isEmpty { variant["notification"] = .object(content) }
            variantList.append(.object(variant))
        }
        if !variantList.isEmpty { object["variants"] = .array(variantList) }
        let holdout = holdoutPercent.trimmingSpaces
        if !holdout.isEmpty {
            if let number = Int(holdout) { object["holdout_percent"] = .number(Double(number)) } else {
                errors.add("holdout_percent", "the holdout is a whole percentage from 0 to 99")
            }
        }
        if scheduleKind != "none" {
            var schedule: JSONObject = ["kind": .string(scheduleKind)]
            switch scheduleKind {
            case "once":
                schedule["at"] = .string(scheduleAt)
                schedule["time_zone"] = .string(timeZone)
            case "daily", "weekly":
                schedule["time"] = .string(scheduleTime)
                schedule["time_zone"] = .string(timeZone)
                if !scheduleUntil.isEmpty { schedule["until"] = .string(scheduleUntil) }
                if scheduleKind == "weekly" { schedule["days"] = .array(scheduleDays.map(JSON.string)) }
            default: break
            }
            object["schedule"] = .object(schedule)
        }
        return .object(object)
    }

    /// The form field a contract path belongs to.
    static func field(for path: String) -> String {
        let simple: [String: String] = [
            "name": "name", "notification.title": "title", "notification.body": "body", "notification.image": "image_url",
            "notification": "body", "condition": "condition", "topics": "topics", "holdout_percent": "holdout_percent",
            "schedule.at": "schedule_at", "schedule.time": "schedule_time", "schedule.until": "schedule_until",
            "schedule.time_zone": "time_zone", "schedule.days": "schedule_days", "schedule": "schedule_kind",
            "variants": "variants", "data": "data",
        ]
        if let field = simple[path] { return field }
        if path.hasPrefix("topics[") { return "topics" }
        if path.hasPrefix("schedule.days") { return "schedule_days" }
        if path.hasPrefix("data.") { return "data" }
        if path.hasPrefix("options.") {
            let option = String(path.dropFirst("options.".count).prefix { $0 != "." && $0 != "[" })
            return optionFields.contains(option) ? option : "options"
        }
        if path.hasPrefix("variants["), let close = path.firstIndex(of: "]"),
           let index = Int(path[path.index(path.startIndex, offsetBy: 9)..<close]) {
            let rest = path[path.index(after: close)...]
            switch rest {
            case ".key": return "variant_key_\(index)"
            case ".weight": return "variant_weight_\(index)"
            case ".notification.title": return "variant_title_\(index)"
            case ".notification.body", ".notification": return "variant_body_\(index)"
            default: return "variants"
            }
        }
        return "form"
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

    var isEmpty: Bool { byField.isEmpty }
    subscript(field: String) -> [String] { byField[field] ?? [] }
}
