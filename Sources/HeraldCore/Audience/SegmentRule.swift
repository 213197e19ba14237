import HeraldJSON

/// A saved filter over devices: conditions combined with all-of / any-of, nested at most
/// `SegmentRule.maximumDepth` deep. Its JSON form is the contract (`parse`, `toJSON`); the store
/// compiles it to SQL, and `matches` is the same rule in Swift (the tests hold the two together).
///
/// ```json
/// {"all": [
///   {"field": "language", "in": ["fa"]},
///   {"field": "app_version", "at_least": "5.2"},
///   {"last_seen_within_days": 30},
///   {"any": [{"property": "city", "equals": "Tehran"}, {"property": "vip", "exists": true}]},
///   {"property": "plan", "not_in": ["trial"]}
/// ]}
/// ```
///
/// A property takes `equals`, `in`, `not_in` and `exists`, as a field takes `equals`, `in` and
/// `not_in`; "not equals" is `not_in` with one value. `not_in` matches devices that have the
/// property or field with another value: one without it is in no list.
///
/// A language without a region matches every region of it ("fa" matches "fa-IR"). Last seen
/// within N days counts whole UTC days: seen today (UTC) or on one of the N days before.
public indirect enum SegmentRule: Sendable, Equatable {
    case all([SegmentRule])
    case any([SegmentRule])
    case condition(SegmentCondition)

    public static let maximumDepth = 3
    public static let maximumConditions = 50
    public static let maximumValues = 200

    /// Reads a rule, every problem at once (paths under `path`).
    public static func parse(_ json: JSON, at path: String = "rule") -> Result<SegmentRule, ValidationErrors> {
        var reader = JSONReader()
        var count = 0
        let rule = parse(json, at: path, depth: 1, count: &count, reader: &reader)
        if count > maximumConditions {
            reader.report(path, "too_many", "a segment has at most \(maximumConditions) conditions, found \(count)", limit: maximumConditions)
        }
        guard let rule, reader.issues.isEmpty else { return .failure(ValidationErrors(errors: reader.issues)) }
        return .success(rule)
    }

    static func parse(_ json: JSON, at path: String, depth: Int, count: inout Int, reader: inout JSONReader) -> SegmentRule? {
        guard let object = reader.object(json, at: path) else { return nil }
        for group in ["all", "any"] where object[group] != nil {
            reader.rejectUnknown(object, known: [group], at: path)
            let groupPath = JSONReader.path(path, group)
            guard depth <= maximumDepth else {
                reader.report(groupPath, "too_deep", "groups nest at most \(maximumDepth) deep", limit: maximumDepth)
                return nil
            }
            guard let elements = object[group]?.arrayValue, !elements.isEmpty else {
                reader.report(groupPath, "required", "\"\(group)\" is a non-empty array of conditions")
                return nil
            }
            let rules = elements.enumerated().compactMap { index, element in
                parse(element, at: JSONReader.path(groupPath, index: index), depth: depth + 1, count: &count, reader: &reader)
            }
            return group == "all" ? .all(rules) : .any(rules)
        }
        count += 1
        return SegmentCondition.parse(object, at: path, reader: &reader).map(SegmentRule.condition)
    }

    public func toJSON() -> JSON {
        switch self {
        case .all(let rules): ["all": .array(rules.map { $0.toJSON() })]
        case .any(let rules): ["any": .array(rules.map { $0.toJSON() })]
        case .condition(let condition): condition.toJSON()
        }
    }

    /// Whether `device`, last seen `daysSinceSeen` days ago, is in the segment. Days are whole
    /// UTC days (today's UTC date minus the UTC date of the last sighting): "last seen within 30
    /// days" is seen today or on one of the 30 days before, as analytics count days, and as the
    /// census of devices can count exactly (it keeps the day, not the moment).
    public func matches(_ device: Device, daysSinceSeen: Double) -> Bool {
        switch self {
        case .all(let rules): rules.allSatisfy { $0.matches(device, daysSinceSeen: daysSinceSeen) }
        case .any(let rules): rules.contains { $0.matches(device, daysSinceSeen: daysSinceSeen) }
        case .condition(let condition): condition.matches(device, daysSinceSeen: daysSinceSeen)
        }
    }
}

/// One test on a device.
public enum SegmentCondition: Sendable, Equatable {
    case equals(SegmentField, String)
    case isIn(SegmentField, [String])
    case notIn(SegmentField, [String])
    /// The app version is this one or later (5.10 > 5.9).
    case appVersionAtLeast(String)
    case lastSeenWithinDays(Int)
    case propertyEquals(String, String)
    case propertyIn(String, [String])
    /// The property is set, to none of these values (as a field's `not_in`: a device without it is in no list).
    case propertyNotIn(String, [String])
    case propertyExists(String)

    static func parse(_ object: JSONObject, at path: String, reader: inout JSONReader) -> SegmentCondition? {
        // A member that is null is absent: it decides nothing (and a condition always reports why it is refused).
        if reader.member(object, "last_seen_within_days") != nil {
            reader.rejectUnknown(object, known: ["last_seen_within_days"], at: path)
            guard let days = reader.int(object, "last_seen_within_days", at: path) else { return nil }
            guard (1...3650).contains(days) else {
                reader.report(JSONReader.path(path, "last_seen_within_days"), "out_of_range", "from 1 to 3650 days, found \(days)", limit: 3650)
                return nil
            }
            return .lastSeenWithinDays(days)
        }
        if reader.member(object, "property") != nil {
            reader.rejectUnknown(object, known: ["property", "equals", "not_equals", "in", "not_in", "exists"], at: path)
            guard let name = reader.string(object, "property", at: path) else { return nil }
            guard DeviceLimits.isPropertyName(name) else {
                reader.report(JSONReader.path(path, "property"), "invalid_key", "a property name has letters, digits and _, starting with a letter, found \"\(name)\"")
                return nil
            }
            // Every member read first, so a wrong type in one is refused whichever decides.
            let exists = reader.bool(object, "exists", at: path)
            let equals = reader.string(object, "equals", at: path)
            let notEquals = reader.string(object, "not_equals", at: path)
            let lists = valueLists(object, at: path, reader: &reader)
            if let equals { return .propertyEquals(name, equals) }
            // "Not equals" is a list of one not to be in (the stored and answered form).
            if let notEquals { return .propertyNotIn(name, [notEquals]) }
            if let values = lists.in { return .propertyIn(name, values) }
            if let values = lists.notIn { return .propertyNotIn(name, values) }
            if exists == true { return .propertyExists(name) }
            // A member of the wrong type (or a list of the wrong size) was reported as such.
            let refused = [("equals", equals == nil), ("not_equals", notEquals == nil), ("exists", exists == nil)]
                .contains { reader.member(object, $0.0) != nil && $0.1 }
            if lists.given || refused { return nil }
            reader.report(path, "required", "a property condition needs \"equals\" or \"not_equals\" (a string), \"in\" or \"not_in\" (lists of strings), or \"exists\": true")
            return nil
        }
        reader.rejectUnknown(object, known: ["field", "equals", "not_equals", "in", "not_in", "at_least"], at: path)
        guard let name = reader.string(object, "field", at: path, required: true) else {
            return nil
        }
        guard let field = SegmentField(rawValue: name) else {
            reader.report(JSONReader.path(path, "field"), "invalid_value",
                          "a field is one of \(SegmentField.allCases.map(\.rawValue).joined(separator: ", ")), found \"\(name)\"")
            return nil
        }
        // Every member read first (null is absent), so a wrong type in one is refused whichever decides.
        let atLeast = reader.string(object, "at_least", at: path)
        let equals = reader.string(object, "equals", at: path)
        let notEquals = reader.string(object, "not_equals", at: path)
        let lists = valueLists(object, at: path, reader: &reader)
        if let minimum = atLeast {
            guard field == .appVersion else {
                reader.report(JSONReader.path(path, "at_least"), "invalid_value", "\"at_least\" takes an app version such as 5.2, on the field app_version")
                return nil
            }
            // A version no device could be registered with would compare as some other version.
            if let problem = AppVersion.problem(minimum) {
                reader.report(JSONReader.path(path, "at_least"), "invalid_value", problem)
                return nil
            }
            return .appVersionAtLeast(minimum)
        }
        if let equals { return .equals(field, field.normalized(equals)) }
        if let notEquals { return .notIn(field, [field.normalized(notEquals)]) }
        if let values = lists.in { return .isIn(field, values.map(field.normalized)) }
        if let values = lists.notIn { return .notIn(field, values.map(field.normalized)) }
        // A member of the wrong type (or a list of the wrong size) was reported as such.
        if lists.given || ["equals", "not_equals", "at_least"].contains(where: { reader.member(object, $0) != nil }) { return nil }
        reader.report(path, "required", "a field condition needs \"equals\", \"not_equals\", \"in\", \"not_in\" or (for app_version) \"at_least\"")
        return nil
    }

    /// A condition's `in` and `not_in` lists, each 1 to `maximumValues` strings (nil when absent
    /// or refused); `given`: whether either member is there at all.
    static func valueLists(_ object: JSONObject, at path: String, reader: inout JSONReader) -> (in: [String]?, notIn: [String]?, given: Bool) {
        let lists = ["in", "not_in"].map { key -> [String]? in
            guard let values = reader.strings(object, key, at: path) else { return nil }
            guard (1...SegmentRule.maximumValues).contains(values.count) else {
                reader.report(JSONReader.path(path, key), "out_of_range", "give 1 to \(SegmentRule.maximumValues) values, found \(values.count)",
                              limit: SegmentRule.maximumValues)
                return nil
            }
            return values
        }
        return (lists[0], lists[1], reader.member(object, "in") != nil || reader.member(object, "not_in") != nil)
    }

    func toJSON() -> JSON {
        switch self {
        case .equals(let field, let value): ["field": .string(field.rawValue), "equals": .string(value)]
        case .isIn(let field, let values): ["field": .string(field.rawValue), "in": .array(values.map(JSON.string))]
        case .notIn(let field, let values): ["field": .string(field.rawValue), "not_in": .array(values.map(JSON.string))]
        case .appVersionAtLeast(let minimum): ["field": "app_version", "at_least": .string(minimum)]
        case .lastSeenWithinDays(let days): ["last_seen_within_days": .number(Double(days))]
        case .propertyEquals(let name, let value): ["property": .string(name), "equals": .string(value)]
        case .propertyIn(let name, let values): ["property": .string(name), "in": .array(values.map(JSON.string))]
        case .propertyNotIn(let name, let values): ["property": .string(name), "not_in": .array(values.map(JSON.string))]
        case .propertyExists(let name): ["property": .string(name), "exists": true]
        }
    }

    func matches(_ device: Device, daysSinceSeen: Double) -> Bool {
        switch self {
        case .equals(let field, let value): field.matches(device.value(of: field.rawValue), value)
        case .isIn(let field, let values): values.contains { field.matches(device.value(of: field.rawValue), $0) }
        case .notIn(let field, let values):
            // As SQL reads it: a device without the attribute is in no list and so not in "not in" either.
            device.value(of: field.rawValue) != nil && !values.contains { field.matches(device.value(of: field.rawValue), $0) }
        case .appVersionAtLeast(let minimum): device.appVersion.map { AppVersion.isAtLeast($0, minimum) } ?? false
        case .lastSeenWithinDays(let days): daysSinceSeen <= Double(days)
        case .propertyEquals(let name, let value): device.properties[name] == value
        case .propertyIn(let name, let values): device.properties[name].map(values.contains) ?? false
        case .propertyNotIn(let name, let values): device.properties[name].map { !values.contains($0) } ?? false
        case .propertyExists(let name): device.properties[name] != nil
        }
    }
}

/// The device attributes a segment filters on by value.
public enum SegmentField: String, Sendable, CaseIterable {
    case platform, language, country
    case appID = "app_id"
    case appVersion = "app_version"
    case timeZone = "time_zone"

    /// A value as devices store it (languages and countries in their usual case).
    func normalized(_ value: String) -> String {
        switch self {
        case .language: LanguageTag.normalized(value) ?? value
        case .country: value.uppercased()
        case .platform: value.lowercased()
        default: value
        }
    }

    /// Whether a device's value matches `wanted`: a language without a region matches its regions.
    public func matches(_ value: String?, _ wanted: String) -> Bool {
        guard let value else { return false }
        if self == .language, !wanted.contains("-") { return LanguageTag.primary(value) == wanted }
        return value == wanted
    }
}
