import Foundation
import HeraldJSON

/// The JSON form of a schedule, in the campaign contract as `schedule` and usable on its own:
///
/// | kind | members |
/// | --- | --- |
/// | `{"kind": "now"}` | — |
/// | `{"kind": "once", "at": "2026-03-29T09:00", "time_zone": "Europe/Berlin"}` | `at` local date-time (no offset) |
/// | `{"kind": "daily", "time": "09:00", "time_zone": "…", "until": "2026-12-31"}` | `until` optional last local date |
/// | `{"kind": "weekly", "days": ["mon", "thu"], "time": "09:00", "time_zone": "…", "until": …}` | `days` 1…7 distinct of mon…sun |
///
/// `time_zone` is an IANA identifier known to the system's tz database; `time` is "HH:MM" or
/// "HH:MM:SS".
extension Schedule {
    public func toJSON() -> JSON {
        switch self {
        case .now:
            return ["kind": "now"]
        case .once(let at, let zone):
            return ["kind": "once", "at": .string(at.description), "time_zone": .string(zone)]
        case .daily(let time, let zone, let until):
            var object: JSONObject = ["kind": "daily", "time": .string(time.description), "time_zone": .string(zone)]
            if let until { object["until"] = .string(until.description) }
            return .object(object)
        case .weekly(let days, let time, let zone, let until):
            var object: JSONObject = [
                "kind": "weekly", "days": .array(days.sorted().map { .string($0.rawValue) }),
                "time": .string(time.description), "time_zone": .string(zone),
            ]
            if let until { object["until"] = .string(until.description) }
            return .object(object)
        }
    }

    /// Reads a schedule, reporting every problem (paths start at `schedule`).
    public static func parse(_ json: JSON) -> Result<Schedule, ValidationErrors> {
        var reader = JSONReader()
        let schedule = parse(json, at: "schedule", reader: &reader)
        if let schedule, reader.issues.isEmpty { return .success(schedule) }
        return .failure(ValidationErrors(errors: reader.issues))
    }

    static func parse(_ json: JSON, at path: String, reader: inout JSONReader) -> Schedule? {
        guard let object = reader.object(json, at: path) else { return nil }
        guard let kind = reader.string(object, "kind", at: path, required: true) else { return nil }
        let known: [String: Set<String>] = [
            "now": ["kind"], "once": ["kind", "at", "time_zone"], "daily": ["kind", "time", "time_zone", "until"],
            "weekly": ["kind", "days", "time", "time_zone", "until"],
        ]
        guard let fields = known[kind] else {
            reader.report(JSONReader.path(path, "kind"), "invalid_value", "must be now, once, daily or weekly, found \"\(kind)\"")
            return nil
        }
        reader.rejectUnknown(object, known: fields, at: path)
        if kind == "now" { return .now }
        let zone = timeZone(object, at: path, reader: &reader)
        switch kind {
        case "once":
            let at = parsed(object, "at", at: path, reader: &reader, LocalDateTime.init, "a local date and time such as \"2026-03-29T09:00\"")
            guard let at, let zone else { return nil }
            return .once(at: at, timeZone: zone)
        default:
            let time = parsed(object, "time", at: path, reader: &reader, LocalTime.init, "a local time such as \"09:00\"")
            let until = parsed(object, "until", at: path, reader: &reader, LocalDate.init, "a date such as \"2026-12-31\"", required: false)
            var days: Set<Weekday> = []
            if kind == "weekly" {
                let names = reader.strings(object, "days", at: path) ?? []
                if reader.member(object, "days") == nil || names.isEmpty {
                    reader.report(JSONReader.path(path, "days"), "required", "name at least one day (mon … sun)")
                }
                for (index, name) in names.enumerated() {
                    guard let day = Weekday(rawValue: name) else {
                        reader.report(JSONReader.path(JSONReader.path(path, "days"), index: index), "invalid_value",
                            "days are mon, tue, wed, thu, fri, sat, sun; found \"\(name)\"")
                        continue
                    }
                    if !days.insert(day).inserted {
                        reader.report(JSONReader.path(JSONReader.path(path, "days"), index: index), "duplicate", "\(name) is listed twice")
                    }
                }
            }
            guard let time, let zone else { return nil }
            return kind == "daily" ? .daily(at: time, timeZone: zone, until: until) : .weekly(on: days, at: time, timeZone: zone, until: until)
        }
    }

    private static func timeZone(_ object: JSONObject, at path: String, reader: inout JSONReader) -> String? {
        guard let zone = reader.string(object, "time_zone", at: path, required: true) else { return nil }
        guard TimeZone(identifier: zone) != nil else {
            reader.report(JSONReader.path(path, "time_zone"), "invalid_time_zone", "unknown IANA time zone \"\(zone)\"")
            return nil
        }
        return zone
    }

    private static func parsed<T>(
        _ object: JSONObject, _ key: String, at path: String, reader: inout JSONReader, _ make: (String) -> T?, _ expected: String,
        required: Bool = true
    ) -> T? {
        guard let text = reader.string(object, key, at: path, required: required) else { return nil }
        guard let value = make(text) else {
            // An empty field is a missing answer, not a wrong one: say what to fill in.
            reader.report(JSONReader.path(path, key), text.isEmpty ? "required" : "invalid_value",
                          text.isEmpty ? "fill in \(expected)" : "expected \(expected), found \"\(text)\"")
            return nil
        }
        return value
    }
}
