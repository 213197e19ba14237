import HeraldCore
import HeraldHTTP
import HeraldJSON

/// The form as the campaign JSON contract, judged by `CampaignSpec.parse` like an API request;
/// each error's JSON path is mapped back to the field that caused it.
extension CampaignForm {
    /// The campaign, or every error keyed by form field ("form" for those without one).
    func parse(words: Localized) -> Result<CampaignSpec, FormErrors> {
        var errors = FormErrors()
        let json = contractJSON(errors: &errors, words: words)
        if isDataOnly, !(title + body + imageURL).isEmpty || variants.contains(where: { !($0.title + $0.body + $0.image).isEmpty }) {
            errors.add("message_kind", words.text("composer.error.data_only_content"))
        }
        return errors.verdict(CampaignSpec.parse(json), field: field(for:), words: words)
    }

    /// The variant rows that say something, in order: the contract's `variants`.
    var filledVariants: [VariantRow] { variants.filter { !$0.isBlank } }

    /// The campaign JSON contract built from the fields; blank fields are left out.
    func contractJSON(errors: inout FormErrors, words: Localized) -> JSON {
        var object: JSONObject = ["name": .string(name)]
        object["notification"] = Self.notification(title: title, body: body, image: imageURL,
                                                   translations: translations, field: "translations", errors: &errors)
        switch targetKind {
        case "condition":
            object["condition"] = .string(condition)
        case "segment":
            object["segment"] = .string(segment)
        case "tokens":
            // One token per line, as the test send's field takes them.
            object["tokens"] = .array(tokens.split(whereSeparator: \.isNewline).map { JSON.string($0.trimmingSpaces) }.filter { $0 != .string("") })
        default:
            object["topics"] = .array(topicList(errors: &errors, words: words).map(JSON.string))
        }
        object["data"] = Self.dataObject(data, field: "data", errors: &errors, words: words)
        var optionObject = JSONObject()
        for field in Self.optionFields {
            let text = options[field] ?? ""
            guard !text.trimmingSpaces.isEmpty else { continue }
            if Self.integerOptions.contains(field) {
                guard let number = Int(text.trimmingSpaces) else { errors.add(field, words.text("composer.error.whole_number")); continue }
                optionObject[field] = .number(Double(number))
            } else {
                optionObject[field] = .string(text)
            }
        }
        if !overrides.trimmingSpaces.isEmpty {
            do {
                optionObject["overrides"] = try JSON.parse(overrides)
            } catch {
                errors.add("overrides", words.text("composer.error.not_json", error.reason, words.number(error.line), words.number(error.column)))
            }
        }
        if !optionObject.isEmpty { object["options"] = .object(optionObject) }
        let variantList = filledVariants.map { row -> JSON in
            var variant: JSONObject = ["key": .string(row.key)]
            if let weight = Int(row.weight.trimmingSpaces) {
                variant["weight"] = .number(Double(weight))
            } else {
                errors.add("variant_weight_\(row.id)", words.text("composer.error.weight"))
                variant["weight"] = 1
            }
            variant["notification"] = Self.notification(title: row.title, body: row.body, image: row.image, translations: row.translations,
                                                        field: "variant_translations_\(row.id)", errors: &errors)
            variant["data"] = Self.dataObject(row.data, field: "variant_data_\(row.id)", errors: &errors, words: words)
            return .object(variant)
        }
        if !variantList.isEmpty { object["variants"] = .array(variantList) }
        let holdout = holdoutPercent.trimmingSpaces
        if !holdout.isEmpty {
            if let number = Int(holdout) { object["holdout_percent"] = .number(Double(number)) } else {
                errors.add("holdout_percent", words.text("composer.error.holdout"))
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
        delivery.addContract(to: &object, scheduleZone: timeZone, errors: &errors)
        if isLiveActivity { liveActivity.addContract(to: &object, errors: &errors, words: words) }
        return .object(object)
    }

    /// The topics, separated by commas (or line breaks). A space inside one is an error rather
    /// than a second topic: "Bad Topic!" is a typo to point at, not two topics to send to.
    func topicList(errors: inout FormErrors, words: Localized) -> [String] {
        let pieces = topics.split(whereSeparator: { $0 == "," || $0.isNewline })
            .map { String($0).trimmingSpaces }.filter { !$0.isEmpty }
        if pieces.isEmpty { errors.add("topics", words.text("composer.error.no_topic")) }
        for piece in pieces where piece.contains(where: \.isWhitespace) {
            errors.add("topics", words.text("composer.error.topic_space", words.isolate(piece)))
        }
        return pieces.filter { !$0.contains(where: \.isWhitespace) }
    }

    static func notification(title: String, body: String, image: String, translations: String = "", field: String = "translations",
                             errors: inout FormErrors) -> JSON? {
        var content = JSONObject()
        if !title.isEmpty { content["title"] = .string(title) }
        if !body.isEmpty { content["body"] = .string(body) }
        if !image.isEmpty { content["image"] = .string(image) }
        if !translations.trimmingSpaces.isEmpty {
            do {
                content["translations"] = try JSON.parse(translations)
            } catch {
                errors.add(field, "this is not JSON: \(error.reason) at line \(error.line), column \(error.column)")
            }
        }
        return content.isEmpty ? nil : .object(content)
    }

    /// A notification's translations as the form shows them: pretty JSON, or nothing.
    static func translationsText(_ content: NotificationContent?) -> String {
        guard let content, !content.translations.isEmpty, let json = content.toJSON()["translations"] else { return "" }
        return json.prettyString()
    }

    /// The filled rows as a data object; a key given twice is an error, not a silent overwrite.
    static func dataObject(_ rows: [DataRow], field: String, errors: inout FormErrors, words: Localized) -> JSON? {
        var object = JSONObject()
        for row in rows where !row.isBlank {
            if object[row.key] != nil { errors.add(field, words.text("composer.error.duplicate_key", words.isolate(row.key))) }
            object[row.key] = .string(row.value)
        }
        return object.isEmpty ? nil : .object(object)
    }

    /// The form field a contract path belongs to.
    func field(for path: String) -> String {
        let simple: [String: String] = [
            "name": "name", "notification.title": "title", "notification.body": "body", "notification.image": "image_url",
            "notification": "body", "condition": "condition", "topics": "topics", "segment": "segment", "tokens": "tokens", "holdout_percent": "holdout_percent",
            "schedule.at": "schedule_at", "schedule.time": "schedule_time", "schedule.until": "schedule_until",
            "schedule.time_zone": "time_zone", "schedule.days": "schedule_days", "schedule": "schedule_kind", "schedule.kind": "schedule_kind",
            "variants": "variants", "data": "data", "message_kind": "message_kind",
        ]
        if let field = simple[path] { return field }
        if let field = DeliveryFormFields.field(for: path) { return field }
        if let field = LiveActivityFormFields.field(for: path) { return field }
        if path.hasPrefix("topics[") { return "topics" }
        if path.hasPrefix("notification.translations") { return "translations" }
        if path.hasPrefix("tokens[") { return "tokens" }
        if path.hasPrefix("schedule.days") { return "schedule_days" }
        if path.hasPrefix("data.") { return "data" }
        if path.hasPrefix("options.overrides") { return "overrides" }
        if path.hasPrefix("options.") {
            let option = String(path.dropFirst("options.".count).prefix { $0 != "." && $0 != "[" })
            return Self.optionFields.contains(option) ? option : "options"
        }
        if path.hasPrefix("variants["), let close = path.firstIndex(of: "]"),
           let index = Int(path[path.index(path.startIndex, offsetBy: 9)..<close]) {
            let rows = filledVariants
            guard rows.indices.contains(index) else { return "variants" }
            let id = rows[index].id
            let rest = path[path.index(after: close)...]
            switch rest {
            case ".key": return "variant_key_\(id)"
            case ".weight": return "variant_weight_\(id)"
            case ".notification.title": return "variant_title_\(id)"
            case ".notification.image": return "variant_image_\(id)"
            case "", ".notification.body", ".notification": return "variant_body_\(id)"
            default:
                if rest.hasPrefix(".notification.translations") { return "variant_translations_\(id)" }
                return rest.hasPrefix(".data") ? "variant_data_\(id)" : "variant_body_\(id)"
            }
        }
        return "form"
    }
}
