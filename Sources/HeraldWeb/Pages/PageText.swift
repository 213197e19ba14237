import Foundation
import HeraldApp
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
        case .paused: "Paused"
        }
    }

    static func approvalText(_ state: ApprovalState) -> String {
        switch state {
        case .none: "Not submitted for approval"
        case .awaiting: "Awaiting approval"
        case .approved: "Approved"
        case .rejected: "Rejected"
        }
    }

    /// "user:ana@example.com" as "ana@example.com", "api_key:bot" as "bot (API key)".
    static func identityText(_ identity: String) -> String {
        guard let colon = identity.firstIndex(of: ":") else { return identity }
        let kind = Attribution.Kind(rawValue: String(identity[..<colon]))
        let name = String(identity[identity.index(after: colon)...])
        return kind.map { Attribution(name: name, kind: $0).description } ?? identity
    }

    static func scheduleText(_ schedule: Schedule?) -> String {
        guard let json = schedule?.toJSON().objectValue else { return "Not scheduled" }
        let zone = json["time_zone"]?.stringValue ?? ""
        let until = json["until"]?.stringValue.map { " until \($0)" } ?? ""
        switch json["kind"]?.stringValue {
        case "now": return "As soon as published"
        case "once": return "Once, " + localTime(json["at"]?.stringValue ?? "", zone: zone)
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
        case .segment: "a segment"
        case .tokens(let tokens): "\(tokens.count) device\(tokens.count == 1 ? "" : "s")"
        }
    }

    /// "Sun 22 Nov 2026, 00:48 UTC" from a stored RFC 3339 time in UTC (the one date format of the pages).
    static func shortTime(_ iso: String) -> String {
        // The stored form is fixed (`\(utc:)`): "2026-11-22T00:48:05.123456Z".
        localTime(iso, zone: "UTC")
    }

    /// A stored next-run instant in the schedule's own zone (UTC without one).
    static func nextRunText(_ iso: String, schedule: Schedule?) -> String? {
        instant(iso, in: .gmt).map { dateTime($0, in: scheduleZone(schedule)) }
    }

    /// A wall-clock time in `zone` ("2026-03-20T09:30") in the pages' one format.
    static func localTime(_ local: String, zone identifier: String) -> String {
        guard let zone = TimeZone(identifier: identifier), let date = instant(local, in: zone) else { return "\(local) \(identifier)" }
        return dateTime(date, in: zone)
    }

    /// The instant a wall-clock text ("2026-03-20T09:30", seconds and beyond optional) names in `zone`.
    static func instant(_ text: String, in zone: TimeZone) -> Date? {
        let fields = text.prefix(19).split(whereSeparator: { "-T:".contains($0) }).compactMap { Int($0) }
        guard fields.count >= 5 else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar.date(from: DateComponents(year: fields[0], month: fields[1], day: fields[2], hour: fields[3],
                                                  minute: fields[4], second: fields.count > 5 ? fields[5] : 0))
    }

    /// The zone a schedule's times are in (UTC without one).
    static func scheduleZone(_ schedule: Schedule?) -> TimeZone {
        schedule?.toJSON()["time_zone"]?.stringValue.flatMap(TimeZone.init(identifier:)) ?? .gmt
    }

    /// "Fri 20 Mar 2026, 09:30 Asia/Tehran": weekday, day, month, year, 24-hour time and the zone,
    /// so a time is never read in the wrong zone.
    static func dateTime(_ date: Date, in zone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.weekday, .day, .month, .year, .hour, .minute], from: date)
        let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ number: Int?) -> String { number.map { $0 < 10 ? "0\($0)" : String($0) } ?? "00" }
        let zoneName = zone.secondsFromGMT() == 0 && ["GMT", "UTC"].contains(zone.identifier) ? "UTC" : zone.identifier
        return "\(weekdays[(parts.weekday ?? 1) - 1]) \(parts.day ?? 1) \(months[(parts.month ?? 1) - 1]) \(parts.year ?? 0), "
            + "\(two(parts.hour)):\(two(parts.minute)) \(zoneName)"
    }

    static func brief(_ value: JSON) -> String {
        if let text = value.stringValue { return text }
        return value.serializedString()
    }
}
