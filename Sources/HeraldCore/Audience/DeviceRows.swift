import FCMMessage
import HeraldJSON

/// A CSV file of devices: its header names the columns (`token`, `kind`, `platform`, `app_id`,
/// `app_version`, `language`, `country`, `time_zone`, `last_seen_at`, `quiet_categories` separated by
/// spaces, commas or semicolons, `live_activity_token`); every other column is a
/// property (`first_name`, or `properties.first_name`). Each row becomes a device document that
/// `Device.parse` checks like any other, so import and the API share one set of rules.
public struct DeviceCSVLayout: Sendable {
    let columns: [String]

    /// The layout of a header row (a CSV file's first record, on `line`), or why it cannot be one.
    public static func header(_ fields: [String], line: Int = 1) -> Result<DeviceCSVLayout, ValidationErrors> {
        func refused(_ code: String, _ message: String, limit: Int? = nil) -> Result<DeviceCSVLayout, ValidationErrors> {
            .failure(ValidationErrors(errors: [FieldError(path: "line \(line)", code: code, message: message, limit: limit)]))
        }
        guard fields.count <= ImportLimits.columns else {
            return refused("too_many", "the header row has \(fields.count) columns; at most \(ImportLimits.columns)", limit: ImportLimits.columns)
        }
        let names = fields.map { $0.trimmingCharacters(in: " \u{FEFF}").lowercased() }
        guard names.contains("token") else {
            return refused("required", "the header row needs a token column (and platform, and any of kind, app_id, app_version, language, country, time_zone, last_seen_at, or property names)")
        }
        var seen = Set<String>()
        if let duplicate = names.first(where: { !seen.insert($0).inserted }) {
            return refused("duplicate", "the column \(duplicate) appears twice in the header row")
        }
        return .success(DeviceCSVLayout(columns: names))
    }

    /// The layout of a CSV file's first record, or why the file cannot be read: a header that
    /// was refused unread (too long, a bare CR, not UTF-8) refuses the whole file.
    public static func header(_ record: ImportLine<[String]>) -> Result<DeviceCSVLayout, ValidationErrors> {
        switch record.content {
        case .success(let fields): header(fields, line: record.number)
        case .failure(let problem): .failure(ValidationErrors(errors: [problem.issue(field: "line \(record.number)")]))
        }
    }

    /// A column's name, for a problem in its cell ("" beyond the header's columns).
    public func name(ofColumn index: Int) -> String {
        columns.indices.contains(index) ? columns[index] : ""
    }

    /// A row as a device document; empty cells are left out.
    public func document(_ fields: [String]) -> JSON {
        var object = JSONObject()
        var properties = JSONObject()
        for (name, cell) in zip(columns, fields) where !cell.isEmpty {
            // A cell an export guarded against spreadsheet formulas comes back as it was.
            let value = CSVWriter.unguarded(cell)
            if name == "quiet_categories" {
                // One cell holds the list, separated by spaces, commas or semicolons.
                object[name] = .array(value.split(whereSeparator: { " ,;".contains($0) }).map { .string(String($0)) })
            } else if Device.fields.contains(name) {
                object[name] = .string(value)
            } else {
                properties[name.hasPrefix("properties.") ? String(name.dropFirst("properties.".count)) : name] = .string(value)
            }
        }
        if !properties.isEmpty { object["properties"] = .object(properties) }
        return .object(object)
    }

    /// The header row of an export: `kind` beside `token`, so that an export imports back as it was.
    public static func exportHeader(properties: [String]) -> [String] {
        ["token", "kind", "platform", "app_id", "app_version", "language", "country", "time_zone", "last_seen_at", "quiet_categories",
         "live_activity_token"] + properties.map { "properties." + $0 }
    }

    /// A device as an export row under `exportHeader(properties:)`, without its line end.
    public static func exportRow(_ device: Device, properties: [String]) -> String {
        let fields = [device.token, device.kind.rawValue, device.platform.rawValue, device.appID ?? "", device.appVersion ?? "", device.language ?? "",
                      device.country ?? "", device.timeZone ?? "", device.lastSeen.map { RFC3339.utc(secondsSince1970: $0.timeIntervalSince1970) } ?? "", device.quietCategories.joined(separator: " "),
                      device.liveActivityToken ?? ""]
        return CSVWriter.record(fields + properties.map { device.properties[$0] ?? "" })
    }
}

extension String {
    func trimmingCharacters(in set: String) -> String {
        String(drop { set.contains($0) }.reversed().drop { set.contains($0) }.reversed())
    }
}
