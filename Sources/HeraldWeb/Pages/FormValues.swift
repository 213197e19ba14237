/// A posted form's fields by name, as a form model reads them (the last wins when a name repeats).
struct FormValues: Sendable {
    private var values: [String: String] = [:]

    init(_ fields: [(name: String, value: String)]) {
        for (name, value) in fields { values[name] = value }
    }

    /// The field's value; "" when it was not posted.
    func value(_ name: String) -> String { values[name] ?? "" }

    /// Text from a textarea: browsers post its line breaks as CRLF whatever was shown.
    func multiline(_ name: String) -> String { value(name).replacingOccurrences(of: "\r\n", with: "\n") }

    /// The row numbers posted under `prefix` (`data_key_` → 0, 1, 4), in order.
    func rows(_ prefix: String) -> [Int] {
        Set(values.keys.compactMap { name in name.hasPrefix(prefix) ? Int(name.dropFirst(prefix.count)) : nil }).sorted()
    }
}
