import HeraldCore
import HeraldJSON

/// The journey page's form: every field exactly as typed, so a refused save comes back unchanged.
/// A journey is its entry, goal and holdout, then a list of steps; each step's fields are posted
/// under its row number (`s3_name`, `s3_minutes`), the rows in the order of the hidden `step`
/// fields, so moving a step is only a change of that order.
///
/// A send step's message is the campaign composer's own form (`CampaignForm`) under the step's
/// prefix (see `JourneyStepFields`), judged by the campaign contract like a campaign's message.
struct JourneyForm: Sendable, Equatable {
    static let stepTypes = ["send", "wait", "branch", "exit"]
    static let frequencies = ["once", "every_time", "once_per_days"]

    struct StepRow: Sendable, Equatable {
        var id: Int
        var name = ""
        var type = "send"
        /// A wait: "minutes" (a set time), "until_time" (a time of day in the device's zone) or
        /// "until" (something happens, `minutes` its timeout).
        var waitKind = "minutes"
        var minutes = ""
        var untilTime = ""
        /// What a wait listens for and a branch asks: "opened", "converted", "event" (with its
        /// name) or, for a branch, "segment" (with its rule as JSON).
        var condition = "opened"
        var conditionEvent = ""
        var conditionSegment = ""
        /// A step's target by name: a send's or wait's `next` (empty: the next in the list), a
        /// branch's `then` and `else`.
        var next = ""
        var then = ""
        var otherwise = ""
        var message = JourneyForm.blankMessage()
        /// The message members this page does not edit (options, delivery), as JSON, kept as read
        /// so that a journey written over the API saves through the page unchanged.
        var more = ""
    }

    var version: Int?
    var name = ""
    /// "event" (an app event starts it), "joins" (a device comes to match the segment rule) or
    /// "date" (a date property comes due: days from it, at a time of day in the device's zone).
    var entryKind = "event"
    var entryEvent = ""
    var entryDateProperty = ""
    var entryDateOffset = ""
    var entryDateAt = ""
    /// The rule as JSON: who may enter on the event, or the rule a device comes to match.
    var entrySegment = ""
    var frequency = "once"
    var days = ""
    var goalEvent = ""
    var holdoutPercent = ""
    var steps: [StepRow] = []

    init() {}

    /// A send step's message form: the composer's, aimed at the step's device (a journey sends
    /// to whoever reaches the step, so there is no audience to fill in) and without spare rows.
    static func blankMessage() -> CampaignForm {
        var form = CampaignForm(fields: [])
        form.targetKind = "tokens"
        form.tokens = JourneyDefinition.messageAudience
        return form
    }

    init(fields: [(name: String, value: String)]) {
        let posted = FormValues(fields)
        let value = posted.value, multiline = posted.multiline
        version = Int(value("version"))
        name = value("name")
        entryKind = ["joins", "date"].contains(value("entry_kind")) ? value("entry_kind") : "event"
        entryEvent = value("entry_event")
        entryDateProperty = value("entry_date_property")
        entryDateOffset = value("entry_date_offset")
        entryDateAt = value("entry_date_at")
        entrySegment = multiline("entry_segment")
        frequency = Self.frequencies.contains(value("frequency")) ? value("frequency") : "once"
        days = value("days")
        goalEvent = value("goal_event")
        holdoutPercent = value("holdout_percent")
        var seen: Set<Int> = []
        for field in fields where field.name == "step" {
            guard let id = Int(field.value), id >= 0, seen.insert(id).inserted else { continue }
            let names = JourneyStepFields(step: id)
            func stepValue(_ key: String) -> String { value(names.scoped(key)) }
            var row = StepRow(id: id)
            row.name = stepValue("name")
            row.type = Self.stepTypes.contains(stepValue("type")) ? stepValue("type") : "send"
            row.waitKind = ["until_time", "until"].contains(stepValue("wait_kind")) ? stepValue("wait_kind") : "minutes"
            row.minutes = stepValue("minutes")
            row.untilTime = stepValue("until_time")
            row.condition = ["converted", "event", "segment"].contains(stepValue("condition")) ? stepValue("condition") : "opened"
            row.conditionEvent = stepValue("condition_event")
            row.conditionSegment = multiline(names.scoped("condition_segment"))
            row.next = stepValue("next")
            row.then = stepValue("then")
            row.otherwise = stepValue("else")
            row.more = multiline(names.scoped("more"))
            var message = CampaignForm(fields: fields.compactMap { field in names.unscoped(field.name).map { ($0, field.value) } })
            message.targetKind = "tokens"
            message.tokens = JourneyDefinition.messageAudience
            row.message = message
            steps.append(row)
        }
    }

    /// The form showing a stored journey.
    init(_ definition: JourneyDefinition, version: Int) {
        self.version = version
        name = definition.name
        switch definition.entry.trigger {
        case .event(let event): entryKind = "event"; entryEvent = event
        case .joins(let rule): entryKind = "joins"; entrySegment = rule.toJSON().prettyString()
        case .date(let date):
            entryKind = "date"
            entryDateProperty = date.property
            entryDateOffset = date.offsetDays == 0 ? "" : String(date.offsetDays)
            entryDateAt = date.at.description
        }
        if let segment = definition.entry.segment { entrySegment = segment.toJSON().prettyString() }
        switch definition.entry.frequency {
        case .once: frequency = "once"
        case .everyTime: frequency = "every_time"
        case .oncePerDays(let count): frequency = "once_per_days"; days = String(count)
        }
        goalEvent = definition.goalEvent ?? ""
        holdoutPercent = definition.holdoutPercent == 0 ? "" : String(definition.holdoutPercent)
        steps = definition.steps.enumerated().map { index, step in
            var row = StepRow(id: index, name: step.name, type: step.typeName)
            switch step.kind {
            case .send(let spec, let next):
                row.next = next ?? ""
                var message = CampaignForm(spec: spec, version: 0)
                message.data.removeAll(where: \.isBlank)
                message.variants.removeAll(where: \.isBlank)
                row.message = message
                let stored = JourneyStep.messageJSON(spec).objectValue ?? [:]
                let kept = JSONObject(stored.filter { Self.keptMembers.contains($0.key) }.map { ($0.key, $0.value) })
                row.more = kept.isEmpty ? "" : JSON.object(kept).serializedString()
            case .wait(let wait):
                row.waitKind = wait.untilLocalTime != nil ? "until_time" : wait.until != nil ? "until" : "minutes"
                row.minutes = wait.minutes.map(String.init) ?? ""
                row.untilTime = wait.untilLocalTime?.description ?? ""
                if let until = wait.until { row.setCondition(until) }
                row.next = wait.next ?? ""
            case .branch(let condition, let then, let otherwise):
                row.setCondition(condition)
                row.then = then
                row.otherwise = otherwise
            case .exit:
                break
            }
            return row
        }
    }

    /// A message's members carried through the page untouched (`StepRow.more`).
    static let keptMembers: Set<String> = ["options", "delivery", "auto_winner"]
}

extension JourneyForm.StepRow {
    mutating func setCondition(_ condition: JourneyCondition) {
        switch condition {
        case .opened: self.condition = "opened"
        case .converted: self.condition = "converted"
        case .event(let name): self.condition = "event"; conditionEvent = name
        case .segment(let rule): self.condition = "segment"; conditionSegment = rule.toJSON().prettyString()
        }
    }
}
