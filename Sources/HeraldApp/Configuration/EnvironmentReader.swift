/// Settings read from the process environment, each part reading its own (the application its
/// database, delivery and accounts; the web module its server): an empty value is unset, and a
/// value that cannot be used is an error that names the variable, the value and what was expected.
public struct EnvironmentReader: Sendable {
    public let environment: [String: String]

    public init(_ environment: [String: String]) {
        self.environment = environment
    }

    public func optional(_ name: String) -> String? {
        guard let value = environment[name], !value.isEmpty else { return nil }
        return value
    }

    public func string(_ name: String, _ fallback: String) -> String {
        optional(name) ?? fallback
    }

    public func integer(_ name: String, _ fallback: Int, _ range: ClosedRange<Int>) throws(ConfigurationError) -> Int {
        guard let text = optional(name) else { return fallback }
        guard let value = Int(text), range.contains(value) else {
            throw ConfigurationError(variable: name, value: text, expected: "a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    /// An integer only when the variable is set (nil: the part chooses for itself).
    public func integerIfSet(_ name: String, _ range: ClosedRange<Int>) throws(ConfigurationError) -> Int? {
        optional(name) == nil ? nil : try integer(name, range.lowerBound, range)
    }

    /// One of an enumeration's raw values, exactly as written.
    public func choice<Choice: RawRepresentable & CaseIterable>(_ name: String, _ fallback: Choice) throws(ConfigurationError) -> Choice
    where Choice.RawValue == String {
        guard let text = optional(name) else { return fallback }
        guard let value = Choice(rawValue: text) else {
            throw ConfigurationError(variable: name, value: text, expected: "one of " + Choice.allCases.map(\.rawValue).joined(separator: ", "))
        }
        return value
    }

    public func boolean(_ name: String, _ fallback: Bool) throws(ConfigurationError) -> Bool {
        guard let text = optional(name) else { return fallback }
        switch text.lowercased() {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default: throw ConfigurationError(variable: name, value: text, expected: "true or false")
        }
    }
}
