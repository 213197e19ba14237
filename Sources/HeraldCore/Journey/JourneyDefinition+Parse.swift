import HeraldJSON

extension JourneyDefinition {
    /// The document's limits.
    public static let maximumSteps = 50
    public static let nameCharacters = 200
    public static let stepNameCharacters = 100
    public static let eventNameCharacters = 100
    /// The longest wait or timeout: a year.
    public static let maximumMinutes = 525_600
    /// The longest gap between entries of one device.
    public static let maximumReentryDays = 3650

    /// Reads and validates a journey from its JSON form, every problem at once:
    ///
    /// ```json
    /// {"name": "Welcome",
    ///  "entry": {"event": "signed_up", "segment": {…rule…}, "frequency": "once" | "every_time" | "once_per_days", "days": 7},
    ///  (or "entry": {"joins": {…rule…}}: a device enters when it comes to match the rule as it is registered, updated or imported;
    ///  or "entry": {"date": {"property": "renewal_date", "offset_days": -3, "at": "10:00"}}: when the date comes due in its zone)
    ///  "goal": {"event": "purchased"}, "holdout_percent": 10,
    ///  "steps": [
    ///    {"name": "settle", "type": "wait", "minutes": 60},
    ///    {"name": "welcome", "type": "send", "message": {"notification": {…}, "variants": […], "data": {…}, "options": {…}, "delivery": {…}}},
    ///    {"name": "read?", "type": "wait", "until": {"opened": true}, "minutes": 1440},
    ///    {"name": "check", "type": "branch", "if": {"opened": true}, "then": "done", "else": "nudge"},
    ///    {"name": "nudge", "type": "send", "message": {…}},
    ///    {"name": "done", "type": "exit"}]}
    /// ```
    ///
    /// A step goes on to the next in the list unless it names another (`next`; a branch's `then`
    /// and `else`), always a later one: a journey cannot loop. A wait has `minutes`, or
    /// `until_time` ("HH:MM", in the device's zone), or `until` a condition with `minutes` as its
    /// timeout. Conditions: `{"event": name}` (reported since the device entered), `{"opened": true}`
    /// and `{"converted": true}` (of the last message the journey sent it), `{"segment": rule}`
    /// (branches only). A send's message is a campaign's, without audience, schedule or test.
    public static func parse(_ json: JSON) -> Result<JourneyDefinition, ValidationErrors> {
        var reader = JSONReader()
        let definition = parse(json, reader: &reader)
        guard let definition, reader.issues.isEmpty else { return .failure(ValidationErrors(errors: reader.issues)) }
        return .success(definition)
    }

    /// The members a server adds to a stored journey, ignored when a read document is sent back.
    public static let serverFields: Set<String> = ["id", "status", "version", "published_version", "created_at", "updated_at"]

    static func parse(_ json: JSON, reader: inout JSONReader) -> JourneyDefinition? {
        guard let object = reader.object(json, at: "") else { return nil }
        reader.rejectUnknown(object, known: Set(["name", "entry", "goal", "holdout_percent", "steps"]).union(serverFields), at: "")
        let name = reader.string(object, "name", at: "", required: true) ?? ""
        if reader.member(object, "name")?.stringValue != nil {
            if name.allSatisfy(\.isWhitespace) {
                reader.report("name", "required", "the name must not be empty")
            } else if name.count > nameCharacters {
                reader.report("name", "too_long", "at most \(nameCharacters) characters, found \(name.count)", limit: nameCharacters)
            }
        }
        let entry = reader.object(object, "entry", at: "", required: true).flatMap { parseEntry($0, reader: &reader) }
        var goal: String?
        if let goalObject = reader.object(object, "goal", at: "") {
            reader.rejectUnknown(goalObject, known: ["event"], at: "goal")
            goal = eventName(goalObject, "event", at: "goal", required: true, reader: &reader)
            if let goal, goal == entry?.event {
                reader.report("goal.event", "conflict", "the goal cannot be the entry event \"\(goal)\": every entrant would leave at once")
            }
        }
        var holdout = 0
        if let value = reader.int(object, "holdout_percent", at: "") {
            if (0..<100).contains(value) { holdout = value } else {
                reader.report("holdout_percent", "out_of_range", "must be 0 to 99 percent, found \(value)", limit: 99)
            }
        }
        let steps = parseSteps(object, journeyName: name, reader: &reader)
        guard let entry, let steps else { return nil }
        return JourneyDefinition(name: name, entry: entry, goalEvent: goal, holdoutPercent: holdout, steps: steps)
    }

    static func parseEntry(_ object: JSONObject, reader: inout JSONReader) -> JourneyEntry? {
        reader.rejectUnknown(object, known: ["event", "joins", "date", "segment", "frequency", "days"], at: "entry")
        var trigger: JourneyTrigger?
        let given = ["event", "joins", "date"].filter { object[$0].map { $0 != .null } ?? false }
        switch given.count > 1 ? "several" : given.first {
        case "several"?:
            reader.report("entry", "conflict", "an entry is on an event, on joining a segment or on a date, one of them: found \(given.joined(separator: " and "))")
        case nil:
            reader.report("entry.event", "required",
                          "an entry has \"event\" (an app event's name), \"joins\" (a segment rule a device comes to match) or \"date\" (a date property coming due)")
        case "event"?:
            trigger = eventName(object, "event", at: "entry", required: true, reader: &reader).map(JourneyTrigger.event)
        case "date"?:
            trigger = reader.object(object, "date", at: "entry").flatMap { parseDate($0, reader: &reader) }.map(JourneyTrigger.date)
        default:
            switch SegmentRule.parse(object["joins"] ?? .null, at: "entry.joins") {
            case .success(let rule): trigger = .joins(rule)
            case .failure(let errors): reader.append(errors.errors)
            }
            if reader.member(object, "segment") != nil {
                reader.report("entry.segment", "conflict", "\"segment\" narrows an event's entrants; a journey entered on joining a segment has its rule in \"joins\"")
            }
        }
        var segment: SegmentRule?
        if let rule = reader.member(object, "segment") {
            switch SegmentRule.parse(rule, at: "entry.segment") {
            case .success(let parsed): segment = parsed
            case .failure(let errors): reader.append(errors.errors)
            }
        }
        var frequency = JourneyEntryFrequency.once
        let days = reader.int(object, "days", at: "entry")
        switch reader.string(object, "frequency", at: "entry") {
        case nil, "once"?: frequency = .once
        case "every_time"?: frequency = .everyTime
        case "once_per_days"?:
            if let days, (1...maximumReentryDays).contains(days) {
                frequency = .oncePerDays(days)
            } else {
                reader.report("entry.days", days == nil ? "required" : "out_of_range",
                              "once_per_days needs \"days\", 1 to \(maximumReentryDays), the days between a device's entries", limit: maximumReentryDays)
            }
        case let other?:
            reader.report("entry.frequency", "invalid_value", "frequency is \"once\", \"every_time\" or \"once_per_days\", found \"\(other)\"")
        }
        if days != nil, frequency.reentryDays == 0 || frequency == .once {
            reader.report("entry.days", "conflict", "\"days\" goes with \"frequency\": \"once_per_days\" only")
        }
        guard let trigger else { return nil }
        return JourneyEntry(trigger, segment: segment, frequency: frequency)
    }

    /// `{"property": "renewal_date", "offset_days": -3, "at": "10:00"}`.
    static func parseDate(_ object: JSONObject, reader: inout JSONReader) -> JourneyDateEntry? {
        let path = "entry.date"
        reader.rejectUnknown(object, known: ["property", "offset_days", "at"], at: path)
        var property = reader.string(object, "property", at: path, required: true)
        if let name = property, !DeviceLimits.isPropertyName(name) {
            reader.report(JSONReader.path(path, "property"), "invalid_value",
                          "a property name has 1 to \(DeviceLimits.propertyNameCharacters) letters, digits and _, starting with a letter, found \"\(name)\"")
            property = nil
        }
        var offset = reader.int(object, "offset_days", at: path) ?? 0
        if !(-JourneyDateEntry.maximumOffsetDays...JourneyDateEntry.maximumOffsetDays).contains(offset) {
            reader.report(JSONReader.path(path, "offset_days"), "out_of_range",
                          "offset_days is -\(JourneyDateEntry.maximumOffsetDays) to \(JourneyDateEntry.maximumOffsetDays) (negative: days before the date), found \(offset)",
                          limit: JourneyDateEntry.maximumOffsetDays)
            offset = 0
        }
        var at: LocalTime?
        if let text = reader.string(object, "at", at: path, required: true) {
            at = LocalTime(text).flatMap { text.count == 5 ? $0 : nil }
            if at == nil { reader.report(JSONReader.path(path, "at"), "invalid_value", "at is a time of day \"HH:MM\" such as \"10:00\", found \"\(text)\"") }
        }
        guard let property, let at else { return nil }
        return JourneyDateEntry(property: property, offsetDays: offset, at: at)
    }

    static func parseSteps(_ object: JSONObject, journeyName: String, reader: inout JSONReader) -> [JourneyStep]? {
        guard let value = reader.member(object, "steps") else {
            reader.report("steps", "required", "\"steps\" is required: 1 to \(maximumSteps) steps")
            return nil
        }
        guard let elements = value.arrayValue else {
            reader.wrongType("steps", expected: "an array of steps", found: value)
            return nil
        }
        guard (1...maximumSteps).contains(elements.count) else {
            reader.report("steps", elements.isEmpty ? "required" : "too_many", "a journey has 1 to \(maximumSteps) steps, found \(elements.count)", limit: maximumSteps)
            return nil
        }
        // Names first: a step may point at any later one.
        var names: [String?] = []
        for (index, element) in elements.enumerated() {
            let path = JSONReader.path("steps", index: index)
            guard let step = reader.object(element, at: path) else { names.append(nil); continue }
            let name = reader.string(step, "name", at: path, required: true)
            if let name {
                if name.allSatisfy(\.isWhitespace) || name.count > stepNameCharacters {
                    reader.report(JSONReader.path(path, "name"), name.count > stepNameCharacters ? "too_long" : "required",
                                  "a step's name is 1 to \(stepNameCharacters) characters", limit: stepNameCharacters)
                } else if names.contains(name) {
                    reader.report(JSONReader.path(path, "name"), "duplicate", "another step is named \"\(name)\": branches find steps by name")
                }
            }
            names.append(name)
        }
        var steps: [JourneyStep] = []
        for (index, element) in elements.enumerated() {
            let path = JSONReader.path("steps", index: index)
            guard case .object(let object) = element, let name = names[index] else { continue }
            let sendsBefore = steps.contains { if case .send = $0.kind { true } else { false } }
            var context = StepContext(index: index, path: path, names: names, sendsBefore: sendsBefore, journeyName: journeyName, stepName: name)
            if let kind = parseStep(object, context: &context, reader: &reader) {
                steps.append(JourneyStep(name: name, kind: kind))
            }
        }
        return steps.count == elements.count ? steps : nil
    }

    struct StepContext {
        var index: Int
        var path: String
        var names: [String?]
        var sendsBefore: Bool
        var journeyName: String
        var stepName: String

        /// Checks that `key` names a later step.
        func target(_ object: JSONObject, _ key: String, required: Bool, reader: inout JSONReader) -> String? {
            guard let target = reader.string(object, key, at: path, required: required) else { return nil }
            guard let found = names.firstIndex(of: target) else {
                reader.report(JSONReader.path(path, key), "unknown_step", "no step is named \"\(target)\"")
                return nil
            }
            if found <= index {
                reader.report(JSONReader.path(path, key), "backward_step", "\"\(target)\" is not after this step: a journey goes forward, so it cannot loop")
                return nil
            }
            return target
        }
    }

    static func parseStep(_ object: JSONObject, context: inout StepContext, reader: inout JSONReader) -> JourneyStep.Kind? {
        let path = context.path
        let type = reader.string(object, "type", at: path, required: true)
        switch type {
        case "send"?:
            reader.rejectUnknown(object, known: ["name", "type", "message", "next"], at: path)
            let next = context.target(object, "next", required: false, reader: &reader)
            guard let message = reader.object(object, "message", at: path, required: true) else { return nil }
            return parseMessage(message, context: context, reader: &reader).map { .send($0, next: next) }
        case "wait"?:
            reader.rejectUnknown(object, known: ["name", "type", "minutes", "until_time", "until", "next"], at: path)
            return parseWait(object, context: &context, reader: &reader).map(JourneyStep.Kind.wait)
        case "branch"?:
            reader.rejectUnknown(object, known: ["name", "type", "if", "then", "else"], at: path)
            let condition = reader.member(object, "if").flatMap { parseCondition($0, at: JSONReader.path(path, "if"), context: context, allowSegment: true, reader: &reader) }
            if reader.member(object, "if") == nil { reader.report(JSONReader.path(path, "if"), "required", "a branch needs \"if\": the condition it asks") }
            let then = context.target(object, "then", required: true, reader: &reader)
            let otherwise = context.target(object, "else", required: true, reader: &reader)
            guard let condition, let then, let otherwise else { return nil }
            return .branch(condition, then: then, otherwise: otherwise)
        case "exit"?:
            reader.rejectUnknown(object, known: ["name", "type"], at: path)
            return .exit
        case let other?:
            reader.report(JSONReader.path(path, "type"), "invalid_value", "a step's type is \"send\", \"wait\", \"branch\" or \"exit\", found \"\(other)\"")
            return nil
        case nil:
            return nil
        }
    }

    static func parseWait(_ object: JSONObject, context: inout StepContext, reader: inout JSONReader) -> JourneyWait? {
        let path = context.path
        var wait = JourneyWait()
        wait.next = context.target(object, "next", required: false, reader: &reader)
        if let minutes = reader.int(object, "minutes", at: path) {
            if (1...maximumMinutes).contains(minutes) { wait.minutes = minutes } else {
                reader.report(JSONReader.path(path, "minutes"), "out_of_range", "a wait is 1 to \(maximumMinutes) minutes (a year), found \(minutes)", limit: maximumMinutes)
                return nil
            }
        }
        if let text = reader.string(object, "until_time", at: path) {
            guard let time = LocalTime(text), text.count == 5 else {
                reader.report(JSONReader.path(path, "until_time"), "invalid_value", "until_time is a time of day \"HH:MM\" such as \"10:00\", found \"\(text)\"")
                return nil
            }
            wait.untilLocalTime = time
        }
        if let condition = reader.member(object, "until") {
            wait.until = parseCondition(condition, at: JSONReader.path(path, "until"), context: context, allowSegment: false, reader: &reader)
            guard wait.until != nil else { return nil }
        }
        switch (wait.minutes != nil, wait.untilLocalTime != nil, wait.until != nil) {
        case (true, false, _), (false, true, false): return wait
        case (false, false, true):
            reader.report(JSONReader.path(path, "minutes"), "required", "a wait until something happens needs \"minutes\": how long it waits at most")
        case (false, false, false):
            reader.report(path, "required", "a wait has \"minutes\", \"until_time\" or \"until\" (with \"minutes\" as its timeout)")
        default:
            reader.report(JSONReader.path(path, "until_time"), "conflict", "until_time waits for a time of day on its own, without \"minutes\" or \"until\"")
        }
        return nil
    }

    static func parseCondition(_ json: JSON, at path: String, context: StepContext, allowSegment: Bool, reader: inout JSONReader) -> JourneyCondition? {
        guard let object = reader.object(json, at: path) else { return nil }
        guard object.count == 1, let key = object.keys.first else {
            reader.report(path, "invalid_value", "a condition has one member: \"event\", \"opened\", \"converted\"\(allowSegment ? " or \"segment\"" : "")")
            return nil
        }
        switch key {
        case "event":
            return eventName(object, "event", at: path, required: true, reader: &reader).map(JourneyCondition.event)
        case "opened", "converted":
            guard reader.bool(object, key, at: path) == true else {
                reader.report(JSONReader.path(path, key), "invalid_value", "\"\(key)\": true is the only form; a branch's \"else\" takes the other case")
                return nil
            }
            guard context.sendsBefore else {
                reader.report(JSONReader.path(path, key), "no_message", "\"\(key)\" asks about the last message the journey sent, and no send step comes before this one")
                return nil
            }
            return key == "opened" ? .opened : .converted
        case "segment" where allowSegment:
            switch SegmentRule.parse(object["segment"] ?? .null, at: JSONReader.path(path, "segment")) {
            case .success(let rule): return .segment(rule)
            case .failure(let errors):
                reader.append(errors.errors)
                return nil
            }
        case "segment":
            reader.report(JSONReader.path(path, key), "not_for_waits", "a wait listens for an event, an open or a conversion; a segment is a branch's to ask")
            return nil
        default:
            reader.report(JSONReader.path(path, key), "unknown_field",
                          "a condition is \"event\", \"opened\", \"converted\"\(allowSegment ? " or \"segment\"" : "")")
            return nil
        }
    }

    /// The members a send step's message has: a campaign's content, without audience, schedule or
    /// holdout (a journey sends to the device that reached the step, when it does). Its A/B test's
    /// `auto_winner` is called `after_minutes` past the step's first send; from then on every
    /// device that reaches the step gets the winner (or, with no winner and `fallback` "none",
    /// nothing at this step).
    public static let messageFields: Set<String> = ["notification", "data", "options", "variants", "delivery", "auto_winner"]

    static func parseMessage(_ object: JSONObject, context: StepContext, reader: inout JSONReader) -> CampaignSpec? {
        let path = JSONReader.path(context.path, "message")
        var campaign = object
        for key in object.keys where !messageFields.contains(key) {
            reader.report(JSONReader.path(path, key), "unknown_field",
                          "a step's message has \(messageFields.sorted().joined(separator: ", ")): it is sent to each device when it reaches the step")
            campaign[key] = nil
        }
        if case .object(let delivery)? = object["delivery"] {
            for key in delivery.keys where !["category", "transactional"].contains(key) {
                reader.report(JSONReader.path(JSONReader.path(path, "delivery"), key), "unknown_field", "a step's delivery has only category and transactional")
            }
        }
        // Checked as a campaign to devices is (variables need defaults), under the journey's name.
        campaign["name"] = .string(String("\(context.journeyName) · \(context.stepName)".prefix(CampaignLimits.nameCharacters)))
        campaign["tokens"] = .array([.string(messageAudience)])
        switch CampaignSpec.parse(.object(campaign), journeyStep: true) {
        case .success(let spec): return spec
        case .failure(let errors):
            reader.append(errors.errors.filter { $0.path != "name" && !$0.path.hasPrefix("tokens") }, under: path)
            return nil
        }
    }

    /// The audience a step's message is checked (and stored) with: the journey sends each one to
    /// the device that reached the step, never to this token.
    public static let messageAudience = "journey-step"

    static func eventName(_ object: JSONObject, _ key: String, at parent: String, required: Bool, reader: inout JSONReader) -> String? {
        guard let name = reader.string(object, key, at: parent, required: required) else { return nil }
        guard isEventName(name) else {
            reader.report(JSONReader.path(parent, key), "invalid_value",
                          "an event name is 1 to \(eventNameCharacters) letters, digits, _, -, . and :, found \"\(name)\"", limit: eventNameCharacters)
            return nil
        }
        return name
    }

    /// An app event's name: 1 to 100 ASCII letters, digits, `_`, `-`, `.` and `:`.
    public static func isEventName(_ name: String) -> Bool {
        (1...eventNameCharacters).contains(name.utf8.count) && name.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || [0x5F, 0x2D, 0x2E, 0x3A].contains(byte)
        }
    }
}
