/// One problem found while reading a JSON document against an expected shape: where (a path like
/// `variants[1].notification.body`), a machine code (`wrong_type`, `required`, `unknown_field`, …),
/// a sentence for people, and the limit that was broken when there is one.
public struct JSONIssue: Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var code: String
    public var message: String
    public var limit: Int?

    public init(path: String, code: String, message: String, limit: Int? = nil) {
        self.path = path
        self.code = code
        self.message = message
        self.limit = limit
    }

    public var description: String { path.isEmpty ? "\(code): \(message)" : "\(path): \(code): \(message)" }

    /// `{"path", "code", "message", "limit"?}`, for problem+json bodies.
    public func toJSON() -> JSON {
        var object: JSONObject = ["path": .string(path), "code": .string(code), "message": .string(message)]
        if let limit { object["limit"] = .number(Double(limit)) }
        return .object(object)
    }
}

/// Reads typed members out of JSON objects and keeps going after a problem, so that one pass over
/// a document reports every failure at once (a form or an API client fixes them all in one round).
///
/// Conventions: a member that is absent or `null` is "not set"; a member of the wrong type is
/// reported as `wrong_type` ("expected a string, found a number") and read as not set.
public struct JSONReader: Sendable {
    /// Every problem reported so far, in the order found.
    public private(set) var issues: [JSONIssue] = []

    public init() {}

    /// The path of member `key` below `parent` ("" is the document itself).
    public static func path(_ parent: String, _ key: String) -> String {
        parent.isEmpty ? key : "\(parent).\(key)"
    }

    /// The path of element `index` below `parent`.
    public static func path(_ parent: String, index: Int) -> String {
        "\(parent)[\(index)]"
    }

    /// Records a problem.
    public mutating func report(_ path: String, _ code: String, _ message: String, limit: Int? = nil) {
        issues.append(JSONIssue(path: path, code: code, message: message, limit: limit))
    }

    /// Records problems found elsewhere, with their paths placed below `prefix`.
    public mutating func append(_ other: [JSONIssue], under prefix: String = "") {
        for issue in other {
            var moved = issue
            if !prefix.isEmpty {
                moved.path = issue.path.isEmpty ? prefix
                    : issue.path.hasPrefix("[") ? prefix + issue.path : "\(prefix).\(issue.path)"
            }
            issues.append(moved)
        }
    }

    /// Reports a value of the wrong type.
    public mutating func wrongType(_ path: String, expected: String, found: JSON) {
        report(path, "wrong_type", "expected \(expected), found \(found.typeName)")
    }

    /// The value as an object, or nil after reporting `wrong_type`.
    public mutating func object(_ value: JSON, at path: String) -> JSONObject? {
        if let object = value.objectValue { return object }
        wrongType(path, expected: "an object", found: value)
        return nil
    }

    /// Reports `unknown_field` for every member whose key is not in `known`, so typos are never
    /// silently dropped.
    public mutating func rejectUnknown(_ object: JSONObject, known: Set<String>, at path: String) {
        for key in object.keys where !known.contains(key) {
            report(Self.path(path, key), "unknown_field", "unknown field \"\(key)\"")
        }
    }

    /// Reports every null in `json` (`null_value`, at its path). A body that creates or replaces
    /// something says what it holds: a member it does not set is left out, not null.
    public mutating func rejectNulls(_ json: JSON, at path: String = "") {
        switch json {
        case .null: report(path, "null_value", "null is not a value here: leave the field out")
        case .object(let object):
            for (key, value) in object { rejectNulls(value, at: Self.path(path, key)) }
        case .array(let items):
            for (index, item) in items.enumerated() { rejectNulls(item, at: "\(path)[\(index)]") }
        default: break
        }
    }

    /// The member `key`, unless absent or null.
    public func member(_ object: JSONObject, _ key: String) -> JSON? {
        guard let value = object[key], value != .null else { return nil }
        return value
    }

    /// A string member. `required` reports `required` when it is absent.
    public mutating func string(_ object: JSONObject, _ key: String, at parent: String, required: Bool = false) -> String? {
        let path = Self.path(parent, key)
        guard let value = member(object, key) else {
            if required { report(path, "required", "\"\(key)\" is required") }
            return nil
        }
        guard let string = value.stringValue else {
            wrongType(path, expected: "a string", found: value)
            return nil
        }
        return string
    }

    /// A boolean member.
    public mutating func bool(_ object: JSONObject, _ key: String, at parent: String) -> Bool? {
        guard let value = member(object, key) else { return nil }
        guard let bool = value.boolValue else {
            wrongType(Self.path(parent, key), expected: "a boolean", found: value)
            return nil
        }
        return bool
    }

    /// A whole-number member; fractions are `wrong_type` ("expected an integer").
    public mutating func int(_ object: JSONObject, _ key: String, at parent: String, required: Bool = false) -> Int? {
        let path = Self.path(parent, key)
        guard let value = member(object, key) else {
            if required { report(path, "required", "\"\(key)\" is required") }
            return nil
        }
        guard let int = value.intValue else {
            if let number = value.doubleValue {
                report(path, "wrong_type", "expected an integer, found the number \(number)")
            } else {
                wrongType(path, expected: "an integer", found: value)
            }
            return nil
        }
        return int
    }

    /// An object member.
    public mutating func object(_ object: JSONObject, _ key: String, at parent: String, required: Bool = false) -> JSONObject? {
        let path = Self.path(parent, key)
        guard let value = member(object, key) else {
            if required { report(path, "required", "\"\(key)\" is required") }
            return nil
        }
        return self.object(value, at: path)
    }

    /// An array-of-strings member; each element of the wrong type is reported at its index.
    public mutating func strings(_ object: JSONObject, _ key: String, at parent: String) -> [String]? {
        let path = Self.path(parent, key)
        guard let value = member(object, key) else { return nil }
        guard let elements = value.arrayValue else {
            wrongType(path, expected: "an array of strings", found: value)
            return nil
        }
        var result: [String] = []
        for (index, element) in elements.enumerated() {
            if let string = element.stringValue {
                result.append(string)
            } else {
                wrongType(Self.path(path, index: index), expected: "a string", found: element)
            }
        }
        return result
    }

    /// An object member whose values must all be strings (FCM's `map<string, string>`), keeping
    /// the members' order.
    public mutating func stringMap(_ object: JSONObject, _ key: String, at parent: String) -> [(key: String, value: String)]? {
        let path = Self.path(parent, key)
        guard let value = member(object, key) else { return nil }
        guard let members = self.object(value, at: path) else { return nil }
        var result: [(key: String, value: String)] = []
        for (name, element) in members {
            if let string = element.stringValue {
                result.append((name, string))
            } else {
                wrongType(Self.path(path, name), expected: "a string", found: element)
            }
        }
        return result
    }
}
