import FCMMessage
import Foundation
import HeraldApp
import HeraldCore
import HeraldJSON

/// How campaigns read in the pages: statuses, schedules, targets and times in plain words.
extension CampaignPages {
    static func statusText(_ status: CampaignStatus) -> String {
        Localized.text("status.\(status.rawValue)")
    }

    static func approvalText(_ state: ApprovalState) -> String {
        Localized.text("approval.state.\(state.rawValue)")
    }

    /// "user:ana@example.com" as "ana@example.com", "api_key:bot" as "bot (API key)".
    static func identityText(_ identity: String) -> String {
        guard let colon = identity.firstIndex(of: ":") else { return identity }
        let kind = Attribution.Kind(rawValue: String(identity[..<colon]))
        let name = String(identity[identity.index(after: colon)...])
        return kind.map { Attribution(name: name, kind: $0).description } ?? identity
    }

    /// A campaign's schedule; with recipient time, its times are in each recipient's zone
    /// ("Weekly (Mon, Wed, Sat) at 09:00 in each recipient's time zone"), not the schedule's.
    static func scheduleText(of spec: CampaignSpec) -> String {
        scheduleText(spec.schedule, zoneName: spec.delivery.recipientTime == nil ? nil : Localized.text("schedule.recipient_zone"))
    }

    /// `zoneName` stands for the schedule's zone when given.
    static func scheduleText(_ schedule: Schedule?, zoneName: String? = nil) -> String {
        guard let json = schedule?.toJSON().objectValue else { return Localized.text("schedule.none") }
        let zone = zoneName ?? json["time_zone"]?.stringValue ?? ""
        let until = json["until"]?.stringValue.map { Localized.text("schedule.until", dayText($0)) } ?? ""
        let time = timeText(json["time"]?.stringValue ?? "")
        switch json["kind"]?.stringValue {
        case "now": return Localized.text("schedule.now")
        case "once":
            let at = json["at"]?.stringValue ?? ""
            return Localized.text("schedule.once", zoneName.map { localTime(at, zone: "UTC", shownAs: $0) } ?? localTime(at, zone: zone))
        case "daily": return Localized.text("schedule.daily", time, zone, until)
        case "weekly":
            let days = (json["days"]?.arrayValue ?? []).compactMap(\.stringValue).map(weekdayText)
            return Localized.text("schedule.weekly", days.joined(separator: Localized.text("list.separator")), time, zone, until)
        default: return Localized.text("schedule.none")
        }
    }

    /// A day of a schedule ("mon") in the page's language ("Mon" in English).
    static func weekdayText(_ day: String) -> String {
        let order = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]
        guard Localized.language != .en else { return day.prefix(1).uppercased() + day.dropFirst() }
        guard let index = order.firstIndex(of: day) else { return day }
        let names = DateTexts.shared.weekdays(Localized.language)
        return index < names.count ? names[index] : day
    }

    /// A schedule's "09:30" in the page's digits.
    static func timeText(_ text: String) -> String {
        let parts = text.split(separator: ":").compactMap { Int($0) }
        guard Localized.language != .en, parts.count >= 2 else { return text }
        return DateTexts.shared.time(hour: parts[0], minute: parts[1], language: Localized.language) ?? text
    }

    /// A schedule's last day ("2026-05-01") in the page's language and calendar.
    static func dayText(_ text: String) -> String {
        let parts = text.split(separator: "-").compactMap { Int($0) }
        guard Localized.language != .en, parts.count == 3 else { return text }
        return DateTexts.shared.day(year: parts[0], month: parts[1], day: parts[2], language: Localized.language) ?? text
    }

    /// Who a campaign goes to: its topics, its condition, "238 devices in “VIPs”" (by the
    /// segment's summary; "a segment that was deleted" without one), or its devices.
    static func targetText(_ audience: Audience, segments: [SegmentID: SegmentSummary] = [:]) -> String {
        switch audience {
        // Topic names are Latin and shown in an LTR island: the separator stays ", ".
        case .topics(let topics): topics.joined(separator: ", ")
        case .condition(let condition): condition
        case .segment(let id):
            if let segment = segments[id] {
                Localized.plural("list.target_segment_named", count: segment.devices, Localized.isolate(segment.name))
            } else {
                Localized.text("list.target_segment_gone")
            }
        case .tokens(let tokens): Localized.text("list.target_tokens", Localized.number(tokens.count))
        }
    }

    /// "Sun 22 Nov 2026, 00:48 UTC" from a stored RFC 3339 time in UTC (the one date format of the pages).
    static func shortTime(_ iso: String) -> String {
        // The stored form is fixed (`\(utc:)`): "2026-11-22T00:48:05.123456Z".
        localTime(iso, zone: "UTC")
    }

    static func shortTime(_ date: Date) -> String {
        shortTime(RFC3339.utc(secondsSince1970: date.timeIntervalSince1970))
    }

    /// A stored next-run instant in the schedule's own zone (UTC without one); with recipient
    /// time, the local time it stands for in each recipient's zone (the stored instant is only
    /// when the first zone in the world reaches it).
    static func nextRunText(_ iso: String, of spec: CampaignSpec) -> String? {
        guard let date = instant(iso, in: .gmt) else { return nil }
        guard spec.delivery.recipientTime != nil, let schedule = spec.schedule else { return dateTime(date, in: scheduleZone(spec.schedule)) }
        let local = WallClock.instant(of: RecipientTime.localTime(ofRunAt: date, schedule: schedule), in: .gmt)
        return dateTime(local, in: .gmt, shownAs: Localized.text("schedule.recipient_zone"))
    }

    /// A wall-clock time in `zone` ("2026-03-20T09:30") in the pages' one format; `zoneName`
    /// is said instead of the zone's when given ("in each recipient's time zone").
    static func localTime(_ local: String, zone identifier: String, shownAs zoneName: String? = nil) -> String {
        guard let zone = TimeZone(identifier: identifier), let date = instant(local, in: zone) else { return "\(local) \(identifier)" }
        return dateTime(date, in: zone, shownAs: zoneName)
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
    /// so a time is never read in the wrong zone. Other languages write it through Foundation's
    /// formatters (`DateTexts`): "یکشنبه ۱ فروردین ۱۴۰۶، ۰۹:۳۰ (۲۱ مارس ۲۰۲۷) Asia/Tehran".
    static func dateTime(_ date: Date, in zone: TimeZone, shownAs shownName: String? = nil) -> String {
        let zoneName = shownName ?? (zone.secondsFromGMT() == 0 && ["GMT", "UTC"].contains(zone.identifier) ? "UTC" : zone.identifier)
        if Localized.language != .en {
            return DateTexts.shared.dateTime(date, in: zone, zoneName: zoneName, language: Localized.language)
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

    static func brief(_ value: JSON) -> String {
        if let text = value.stringValue { return text }
        return value.serializedString()
    }
}
