import HeraldJSON

/// Reads CSV (RFC 4180: quoted fields may hold commas, quotes and line breaks) record by record
/// from chunks of bytes as they arrive, so a file of any size passes through bounded memory.
public struct CSVRecordReader: Sendable {
    var field: [UInt8] = []
    var record: [String] = []
    var inQuotes = false
    var quoteSeen = false
    var fieldStarted = false
    /// The line each record starts on (1-based), for error reports.
    public private(set) var line = 1
    var recordLine = 1

    public init() {}

    /// The records completed by `bytes`, each with the line it started on.
    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [(line: Int, fields: [String])] {
        var records: [(Int, [String])] = []
        for byte in bytes {
            if inQuotes {
                if byte == UInt8(ascii: "\"") {
                    inQuotes = false
                    quoteSeen = true
                } else {
                    if byte == UInt8(ascii: "\n") { line += 1 }
                    field.append(byte)
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                if quoteSeen { field.append(byte) }  // "" inside quotes is one quote
                inQuotes = true
                quoteSeen = false
                fieldStarted = true
            case UInt8(ascii: ","):
                endField()
            case UInt8(ascii: "\n"):
                endField()
                if !(record.count == 1 && record[0].isEmpty) { records.append((recordLine, record)) }
                record = []
                line += 1
                recordLine = line
            case UInt8(ascii: "\r"):
                quoteSeen = false
            default:
                quoteSeen = false
                fieldStarted = true
                field.append(byte)
            }
        }
        return records
    }

    /// The last record when the input does not end with a line break.
    public mutating func finish() -> (line: Int, fields: [String])? {
        guard fieldStarted || !field.isEmpty || !record.isEmpty else { return nil }
        endField()
        defer { record = [] }
        return (recordLine, record)
    }

    mutating func endField() {
        record.append(String(decoding: field, as: UTF8.self))
        field.removeAll(keepingCapacity: true)
        quoteSeen = false
        fieldStarted = false
    }
}

/// A CSV file of devices: its header names the columns (`token`, `platform`, `app_id`,
/// `app_version`, `language`, `country`, `time_zone`, `last_seen_at`); every other column is a
/// property (`first_name`, or `properties.first_name`). Each row becomes a device document that
/// `Device.parse` checks like any other, so import and the API share one set of rules.
public struct DeviceCSVLayout: Sendable {
    let columns: [String]

    /// The layout of a header row, or why it cannot be one.
    public static func header(_ fields: [String]) -> Result<DeviceCSVLayout, ValidationErrors> {
        let names = fields.map { $0.trimmingCharacters(in: " \u{FEFF}").lowercased() }
        guard names.contains("token") else {
            return .failure(ValidationErrors(errors: [FieldError(path: "line 1", code: "required", message: "the header row needs a token column (and platform, and any of app_id, app_version, language, country, time_zone, last_seen_at, or property names)")]))
        }
        if let duplicate = names.first(where: { name in names.filter { $0 == name }.count > 1 }) {
            return .failure(ValidationErrors(errors: [FieldError(path: "line 1", code: "duplicate", message: "the column \(duplicate) appears twice in the header row")]))
        }
        return .success(DeviceCSVLayout(columns: names))
    }

    /// A row as a device document; empty cells are left out.
    public func document(_ fields: [String]) -> JSON {
        var object = JSONObject()
        var properties = JSONObject()
        for (name, value) in zip(columns, fields) where !value.isEmpty {
            if Device.fields.contains(name) {
                object[name] = .string(value)
            } else {
                properties[name.hasPrefix("properties.") ? String(name.dropFirst("properties.".count)) : name] = .string(value)
            }
        }
        if !properties.isEmpty { object["properties"] = .object(properties) }
        return .object(object)
    }

    /// The header row of an export.
    public static func exportHeader(properties: [String]) -> [String] {
        ["token", "platform", "app_id", "app_version", "language", "country", "time_zone", "last_seen_at"] + properties.map { "properties." + $0 }
    }

    /// A device as an export row under `exportHeader(properties:)`.
    public static func exportRow(_ device: Device, properties: [String]) -> String {
        let fields = [device.token, device.platform.rawValue, device.appID ?? "", device.appVersion ?? "", device.language ?? "",
                      device.country ?? "", device.timeZone ?? "", device.lastSeen ?? ""]
        return (fields.map { quoted($0) } + properties.map { quoted(device.properties[$0] ?? "", guardingFormulas: true) }).joined(separator: ",")
    }

    /// A CSV field, quoted when it must be. A free-text value starting with = + - @ is prefixed
    /// with ' so that a spreadsheet never runs it as a formula.
    public static func quoted(_ field: String, guardingFormulas: Bool = false) -> String {
        var text = field
        if guardingFormulas, let first = text.first, "=+-@".contains(first) { text = "'" + text }
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

extension String {
    func trimmingCharacters(in set: String) -> String {
        String(drop { set.contains($0) }.reversed().drop { set.contains($0) }.reversed())
    }
}
