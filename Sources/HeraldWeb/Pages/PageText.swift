import HeraldCore
import HeraldJSON

/// How campaigns read in the pages: statuses, schedules, targets and times in plain words.
extension CampaignPages {
    static func statusText(_ status: CampaignStatus) -> String {
        switch status {
        case .draft: "Draft"
        case .scheduled: "Scheduled"
        case .sending: "Sending"
        case .sent: "Sent"
        case .partiallyFailed: "Partly failed"
        case .failed: "Failed"
        case .cancelled: "Cancelled"
        }
    }

    static func scheduleText(_ schedule: Schedule?) -> String {
        guard let json = schedule?.toJSON().objectValue else { return "Not scheduled" }
        let zone = json["time_zone"]?.stringValue ?? ""
        let until = json["until"]?.stringValue.map { " until \($0)" } ?? ""
        switch json["kind"]?.stringValue {
        case "now": return "As soon as published"
        case "once": return "Once, \((json["at"]?.stringValue ?? "").replacingT) \(zone)"
        case "daily": return "Daily at \(json["time"]?.stringValue ?? "") \(zone)\(until)"
        case "weekly":
            let days = (json["days"]?.arrayValue ?? []).compactMap(\.stringValue).joined(separator: ", ")
            return "Weekly (\(days)) at \(json["time"]?.stringValue ?? "") \(zone)\(until)"
        default: return "Not scheduled"
        }
    }

    static func targetText(_ audience: Audience) -> String {
        switch audience {
        case .topics(let topics): topics.joined(separator: ", ")
        case .condition(let condition): condition
        }
    }

    /// "2026-11-22 00:48 UTC" from a stored RFC 3339 time.
    static func shortTime(_ iso: String) -> String {
        String(iso.prefix(16)).replacingT + " UTC"
    }

    static func brief(_ value: JSON) -> String {
        if let text = value.stringValue { return text }
        return value.serializedString()
    }
}

extension String {
    fileprivate var replacingT: String {
        guard count > 10 else { return self }
        var copy = self
        let index = copy.index(copy.startIndex, offsetBy: 10)
        if copy[index] == "T" { copy.replaceSubrange(index...index, with: " ") }
        return copy
    }
}
