import HeraldJSON

extension JourneyDefinition {
    /// The document `parse` reads, members in the order the editor writes them.
    public func toJSON() -> JSON {
        var object: JSONObject = ["name": .string(name), "entry": entry.toJSON()]
        if let goalEvent { object["goal"] = ["event": .string(goalEvent)] }
        if holdoutPercent != 0 { object["holdout_percent"] = .number(Double(holdoutPercent)) }
        object["steps"] = .array(steps.map { $0.toJSON() })
        return .object(object)
    }
}

extension JourneyEntry {
    public func toJSON() -> JSON {
        var object: JSONObject = [:]
        switch trigger {
        case .event(let name): object["event"] = .string(name)
        case .joins(let rule): object["joins"] = rule.toJSON()
        case .date(let date):
            object["date"] = ["property": .string(date.property), "offset_days": .number(Double(date.offsetDays)), "at": .string(date.at.description)]
        }
        if let segment { object["segment"] = segment.toJSON() }
        switch frequency {
        case .once: object["frequency"] = "once"
        case .everyTime: object["frequency"] = "every_time"
        case .oncePerDays(let days):
            object["frequency"] = "once_per_days"
            object["days"] = .number(Double(days))
        }
        return .object(object)
    }
}

extension JourneyStep {
    public func toJSON() -> JSON {
        var object: JSONObject = ["name": .string(name), "type": .string(typeName)]
        switch kind {
        case .send(let spec, let next):
            object["message"] = Self.messageJSON(spec)
            if let next { object["next"] = .string(next) }
        case .wait(let wait):
            if let minutes = wait.minutes { object["minutes"] = .number(Double(minutes)) }
            if let time = wait.untilLocalTime { object["until_time"] = .string(time.description) }
            if let until = wait.until { object["until"] = until.toJSON() }
            if let next = wait.next { object["next"] = .string(next) }
        case .branch(let condition, let then, let otherwise):
            object["if"] = condition.toJSON()
            object["then"] = .string(then)
            object["else"] = .string(otherwise)
        case .exit:
            break
        }
        return .object(object)
    }

    /// A step's message as the editor wrote it: the campaign's content members only.
    public static func messageJSON(_ spec: CampaignSpec) -> JSON {
        guard case .object(let campaign) = spec.toJSON() else { return .object([:]) }
        return .object(JSONObject(campaign.filter { JourneyDefinition.messageFields.contains($0.key) }.map { ($0.key, $0.value) }))
    }
}

extension JourneyCondition {
    public func toJSON() -> JSON {
        switch self {
        case .event(let name): ["event": .string(name)]
        case .opened: ["opened": true]
        case .converted: ["converted": true]
        case .segment(let rule): ["segment": rule.toJSON()]
        }
    }
}
