import HeraldCore
import HeraldJSON

/// The form as the journey JSON contract, judged by `JourneyDefinition.parse` exactly as the API
/// judges a request; each problem's path is mapped back to the field that caused it.
extension JourneyForm {
    /// The journey, or every problem keyed by posted field name ("form" for those without one).
    func parse(words: Localized) -> Result<JourneyDefinition, FormErrors> {
        var errors = FormErrors()
        let json = contractJSON(errors: &errors, words: words)
        return errors.verdict(JourneyDefinition.parse(json), field: field(for:), words: words)
    }

    /// The journey JSON contract built from the fields; blank optional fields are left out, so
    /// that the contract, not the page, says what is missing.
    func contractJSON(errors: inout FormErrors, words: Localized) -> JSON {
        var object: JSONObject = ["name": .string(name)]
        var entry: JSONObject = [:]
        let rule = Self.json(entrySegment, field: "entry_segment", errors: &errors, words: words)
        if entryKind == "joins" {
            if let rule { entry["joins"] = rule }
        } else if entryKind == "date" {
            var date: JSONObject = ["property": .string(entryDateProperty.trimmingSpaces), "at": .string(entryDateAt.trimmingSpaces)]
            if let offset = Self.integer(entryDateOffset, field: "entry_date_offset", errors: &errors, words: words) { date["offset_days"] = .number(Double(offset)) }
            entry["date"] = .object(date)
            if let rule { entry["segment"] = rule }
        } else {
            entry["event"] = .string(entryEvent.trimmingSpaces)
            if let rule { entry["segment"] = rule }
        }
        entry["frequency"] = .string(frequency)
        if frequency == "once_per_days", let count = Self.integer(days, field: "days", errors: &errors, words: words) {
            entry["days"] = .number(Double(count))
        }
        object["entry"] = .object(entry)
        if !goalEvent.trimmingSpaces.isEmpty { object["goal"] = ["event": .string(goalEvent.trimmingSpaces)] }
        if let holdout = Self.integer(holdoutPercent, field: "holdout_percent", errors: &errors, words: words) {
            object["holdout_percent"] = .number(Double(holdout))
        }
        object["steps"] = .array(steps.map { $0.contractJSON(errors: &errors, words: words) })
        return .object(object)
    }

    /// A whole number typed in `field`, nil when blank (an error when it is not a number).
    static func integer(_ text: String, field: String, errors: inout FormErrors, words: Localized) -> Int? {
        let trimmed = text.trimmingSpaces
        guard !trimmed.isEmpty else { return nil }
        guard let number = Int(trimmed) else {
            errors.add(field, words.text("composer.error.whole_number"))
            return nil
        }
        return number
    }

    /// JSON typed in `field` (a segment rule), nil when blank (an error where it does not read).
    static func json(_ text: String, field: String, errors: inout FormErrors, words: Localized) -> JSON? {
        guard !text.trimmingSpaces.isEmpty else { return nil }
        do {
            return try JSON.parse(text)
        } catch {
            errors.add(field, words.text("composer.error.not_json", error.reason, words.number(error.line), words.number(error.column)))
            return nil
        }
    }

    /// The posted field a problem at the contract's `path` belongs to.
    func field(for path: String) -> String {
        switch path {
        case "name": return "name"
        case "entry", "entry.event": return entryKind == "joins" ? "entry_segment" : "entry_event"
        case "holdout_percent": return "holdout_percent"
        case "steps": return "steps"
        default: break
        }
        if path.hasPrefix("entry.joins") || path.hasPrefix("entry.segment") { return "entry_segment" }
        if path.hasPrefix("entry.date.offset_days") { return "entry_date_offset" }
        if path.hasPrefix("entry.date.at") { return "entry_date_at" }
        if path.hasPrefix("entry.date") { return "entry_date_property" }
        if path.hasPrefix("entry.days") || path.hasPrefix("entry.frequency") { return path.hasPrefix("entry.days") ? "days" : "frequency" }
        if path.hasPrefix("entry") { return "entry_event" }
        if path.hasPrefix("goal") { return "goal_event" }
        guard path.hasPrefix("steps["), let close = path.firstIndex(of: "]"),
              let index = Int(path[path.index(path.startIndex, offsetBy: 6)..<close]), steps.indices.contains(index) else { return "form" }
        let row = steps[index]
        return JourneyStepFields(step: row.id).scoped(row.field(for: String(path[path.index(after: close)...])))
    }
}

extension JourneyForm.StepRow {
    /// The step as the contract's JSON; problems found on the way are added under its posted names.
    func contractJSON(errors: inout FormErrors, words: Localized) -> JSON {
        let names = JourneyStepFields(step: id)
        var object: JSONObject = ["name": .string(name), "type": .string(type)]
        var local = FormErrors()
        switch type {
        case "send":
            var campaign = message.contractJSON(errors: &local, words: words).objectValue ?? [:]
            if let kept = JourneyForm.json(more, field: "more", errors: &local, words: words)?.objectValue {
                for (key, value) in kept where JourneyForm.keptMembers.contains(key) { campaign[key] = value }
            }
            object["message"] = .object(JSONObject(campaign.filter { JourneyDefinition.messageFields.contains($0.key) }.map { ($0.key, $0.value) }))
            if !next.isEmpty { object["next"] = .string(next) }
        case "wait":
            if waitKind == "until_time" {
                object["until_time"] = .string(untilTime.trimmingSpaces)
            } else if let count = JourneyForm.integer(minutes, field: "minutes", errors: &local, words: words) {
                object["minutes"] = .number(Double(count))
            }
            if waitKind == "until", let condition = conditionJSON(errors: &local, words: words) { object["until"] = condition }
            if !next.isEmpty { object["next"] = .string(next) }
        case "branch":
            if let condition = conditionJSON(errors: &local, words: words) { object["if"] = condition }
            if !then.isEmpty { object["then"] = .string(then) }
            if !otherwise.isEmpty { object["else"] = .string(otherwise) }
        default:
            break
        }
        for field in local.order { for text in local[field] { errors.add(names.scoped(field), text) } }
        return .object(object)
    }

    func conditionJSON(errors: inout FormErrors, words: Localized) -> JSON? {
        switch condition {
        case "converted": return ["converted": true]
        case "event": return ["event": .string(conditionEvent.trimmingSpaces)]
        case "segment": return JourneyForm.json(conditionSegment, field: "condition_segment", errors: &errors, words: words).map { ["segment": $0] } ?? nil
        default: return ["opened": true]
        }
    }

    /// The step's own (unscoped) field a problem at `rest` of its path belongs to.
    func field(for rest: String) -> String {
        if rest.hasPrefix(".message") {
            let member = rest.dropFirst(".message".count).drop { $0 == "." }
            if JourneyForm.keptMembers.contains(where: { member.hasPrefix($0) }) { return "more" }
            return member.isEmpty ? "body" : message.field(for: String(member))
        }
        let conditionField = condition == "event" ? "condition_event" : condition == "segment" ? "condition_segment" : "condition"
        switch rest {
        case ".name": return "name"
        case ".type": return "type"
        case ".minutes": return "minutes"
        case ".until_time": return "until_time"
        case ".next": return "next"
        case ".then": return "then"
        case ".else": return "else"
        case "": return type == "wait" ? "minutes" : "name"
        default: return rest.hasPrefix(".until") || rest.hasPrefix(".if") ? conditionField : "name"
        }
    }
}
