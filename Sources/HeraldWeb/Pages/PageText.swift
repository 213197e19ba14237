import FCMMessage
import Foundation
import HeraldApp
import HeraldCore
import HeraldJSON

/// How campaigns read in the pages: statuses, schedules, targets and times in plain words, in
/// the page's language.
extension Localized {
    func statusText(_ status: CampaignStatus) -> String {
        text("status.\(status.rawValue)")
    }

    func approvalText(_ state: ApprovalState) -> String {
        text("approval.state.\(state.rawValue)")
    }

    /// A campaign's schedule; with recipient time, its times are in each recipient's zone
    /// ("Weekly (Mon, Wed, Sat) at 09:00 in each recipient's time zone"), not the schedule's.
    func scheduleText(of spec: CampaignSpec) -> String {
        scheduleText(spec.schedule, zoneName: spec.delivery.recipientTime == nil ? nil : text("schedule.recipient_zone"))
    }

    /// `zoneName` stands for the schedule's zone when given.
    func scheduleText(_ schedule: Schedule?, zoneName: String? = nil) -> String {
        guard let json = schedule?.toJSON().objectValue else { return text("schedule.none") }
        let zone = zoneName ?? json["time_zone"]?.stringValue ?? ""
        let until = json["until"]?.stringValue.map { text("schedule.until", dayText($0)) } ?? ""
        let time = timeText(json["time"]?.stringValue ?? "")
        switch json["kind"]?.stringValue {
        case "now": return text("schedule.now")
        case "once":
            let at = json["at"]?.stringValue ?? ""
            return text("schedule.once", zoneName.map { localTime(at, zone: "UTC", shownAs: $0) } ?? localTime(at, zone: zone))
        case "daily": return text("schedule.daily", time, zone, until)
        case "weekly":
            let days = (json["days"]?.arrayValue ?? []).compactMap(\.stringValue).map(weekdayText)
            return text("schedule.weekly", days.joined(separator: text("list.separator")), time, zone, until)
        default: return text("schedule.none")
        }
    }

    /// A day of a schedule ("mon") in the page's language ("Mon" in English).
    func weekdayText(_ day: String) -> String {
        let order = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]
        guard language != .en else { return day.prefix(1).uppercased() + day.dropFirst() }
        guard let index = order.firstIndex(of: day) else { return day }
        let names = DateTexts.shared.weekdays(language)
        return index < names.count ? names[index] : day
    }

    /// A schedule's "09:30" in the page's digits.
    func timeText(_ text: String) -> String {
        let parts = text.split(separator: ":").compactMap { Int($0) }
        guard language != .en, parts.count >= 2 else { return text }
        return DateTexts.shared.time(hour: parts[0], minute: parts[1], language: language) ?? text
    }

    /// A schedule's last day ("2026-05-01") in the page's language and calendar.
    func dayText(_ text: String) -> String {
        let parts = text.split(separator: "-").compactMap { Int($0) }
        guard language != .en, parts.count == 3 else { return text }
        return DateTexts.shared.day(year: parts[0], month: parts[1], day: parts[2], language: language) ?? text
    }

    /// "12 active devices match now.", or "About 1,200,000 active devices match (an estimate: …)."
    func reachText(_ reach: LiveReach) -> String {
        text(reach.isEstimate ? "segments.reach_estimate" : "segments.reach", number(reach.devices))
    }

    /// Who a campaign goes to: its topics, its condition, "238 devices in “VIPs”" (by the
    /// segment's summary; "a segment that was deleted" without one), or its devices.
    func targetText(_ audience: Audience, segments: [SegmentID: SegmentSummary] = [:]) -> String {
        switch audience {
        // Topic names are Latin and shown in an LTR island: the separator stays ", ".
        case .topics(let topics): topics.joined(separator: ", ")
        case .condition(let condition): condition
        case .segment(let id):
            if let segment = segments[id] {
                plural("list.target_segment_named", count: segment.devices, isolate(segment.name))
            } else {
                text("list.target_segment_gone")
            }
        case .tokens(let tokens): text("list.target_tokens", number(tokens.count))
        }
    }

    /// "Sun 22 Nov 2026, 00:48 UTC" from a stored RFC 3339 time in UTC (the one date format of the pages).
    func shortTime(_ iso: String) -> String {
        // The stored form is fixed (`\(utc:)`): "2026-11-22T00:48:05.123456Z".
        localTime(iso, zone: "UTC")
    }

    func shortTime(_ date: Date) -> String {
        shortTime(RFC3339.utc(secondsSince1970: date.timeIntervalSince1970))
    }

    /// A stored next-run instant in the schedule's own zone (UTC without one); with recipient
    /// time, the local time it stands for in each recipient's zone (the stored instant is only
    /// when the first zone in the world reaches it).
    func nextRunText(_ iso: String, of spec: CampaignSpec) -> String? {
        guard let date = CampaignPages.instant(iso, in: .gmt) else { return nil }
        guard spec.delivery.recipientTime != nil, let schedule = spec.schedule else { return dateTime(date, in: CampaignPages.scheduleZone(spec.schedule)) }
        let local = WallClock.instant(of: RecipientTime.localTime(ofRunAt: date, schedule: schedule), in: .gmt)
        return dateTime(local, in: .gmt, shownAs: text("schedule.recipient_zone"))
    }

    /// A wall-clock time in `zone` ("2026-03-20T09:30") in the pages' one format; `zoneName`
    /// is said instead of the zone's when given ("in each recipient's time zone").
    func localTime(_ local: String, zone identifier: String, shownAs zoneName: String? = nil) -> String {
        guard let zone = TimeZone(identifier: identifier), let date = CampaignPages.instant(local, in: zone) else { return "\(local) \(identifier)" }
        return dateTime(date, in: zone, shownAs: zoneName)
    }

    /// "Fri 20 Mar 2026, 09:30 Asia/Tehran": weekday, day, month, year, 24-hour time and the zone,
    /// so a time is never read in the wrong zone. Other languages write it through Foundation's
    /// formatters (`DateTexts`): "یکشنبه ۱ فروردین ۱۴۰۶، ۰۹:۳۰ (۲۱ مارس ۲۰۲۷) Asia/Tehran".
    func dateTime(_ date: Date, in zone: TimeZone, shownAs shownName: String? = nil) -> String {
        let zoneName = shownName ?? (zone.secondsFromGMT() == 0 && ["GMT", "UTC"].contains(zone.identifier) ? "UTC" : zone.identifier)
        if language != .en {
            return DateTexts.shared.dateTime(date, in: zone, zoneName: zoneName, language: language)
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.weekday, .day, .month, .year, .hour, .minute], from: date)
        let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ number: Int?) -> String { number.map { $0 < 10 ? "0\($0)" : String($0) } ?? "00" }
        return "\(weekdays[(parts.weekday ?? 1) - 1]) \(parts.day ?? 1) \(months[(parts.month ?? 1) - 1]) \(parts.year ?? 0), "
            + "\(two(parts.hour)):\(two(parts.minute)) \(zoneName)"
    }
}

/// What does not depend on the language: a stored identity's name, instants, zones.
extension CampaignPages {
    /// "user:ana@example.com" as "ana@example.com", "api_key:bot" as "bot (API key)".
    static func identityText(_ identity: String) -> String {
        guard let colon = identity.firstIndex(of: ":") else { return identity }
        let kind = Attribution.Kind(rawValue: String(identity[..<colon]))
        let name = String(identity[identity.index(after: colon)...])
        return kind.map { Attribution(name: name, kind: $0).description } ?? identity
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

    static func brief(_ value: JSON) -> String {
        if let text = value.stringValue { return text }
        return value.serializedString()
    }

}
