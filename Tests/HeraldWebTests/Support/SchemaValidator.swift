import HeraldJSON

/// Checks a JSON value against the subset of JSON Schema (2020-12) that Herald's OpenAPI document
/// uses: type, required, properties, additionalProperties, items, enum, minimum/maximum,
/// minLength/maxLength, minItems, pattern and local $ref. Returns every violation with its path.
struct SchemaValidator {
    let document: JSON

    func violations(of value: JSON, against schema: JSON, at path: String = "$") -> [String] {
        guard case .object(let rules) = schema else { return [] }
        if let reference = rules["$ref"]?.stringValue {
            guard let target = resolve(reference) else { return ["\(path): unresolvable $ref \(reference)"] }
            return violations(of: value, against: target, at: path)
        }
        var found: [String] = []
        if let type = rules["type"] {
            let allowed = type.arrayValue?.compactMap(\.stringValue) ?? [type.stringValue].compactMap { $0 }
            guard allowed.contains(where: { Self.matches(value, type: $0) }) else {
                return ["\(path): expected \(allowed.joined(separator: " or ")), found \(value.typeName)"]
            }
        }
        if let options = rules["enum"]?.arrayValue, !options.contains(value) {
            found.append("\(path): \(value.serializedString()) is not one of \(JSON.array(options).serializedString())")
        }
        switch value {
        case .object(let object):
            for name in rules["required"]?.arrayValue?.compactMap(\.stringValue) ?? [] where object[name] == nil {
                found.append("\(path): missing required \(name)")
            }
            let properties = rules["properties"]?.objectValue ?? [:]
            for (key, member) in object {
                if let property = properties[key] {
                    found += violations(of: member, against: property, at: "\(path).\(key)")
                } else if let additional = rules["additionalProperties"] {
                    if additional == .bool(false) {
                        found.append("\(path): undocumented member \(key)")
                    } else {
                        found += violations(of: member, against: additional, at: "\(path).\(key)")
                    }
                }
            }
        case .array(let elements):
            if let minimum = rules["minItems"]?.intValue, elements.count < minimum { found.append("\(path): fewer than \(minimum) items") }
            if let items = rules["items"] {
                for (index, element) in elements.enumerated() { found += violations(of: element, against: items, at: "\(path)[\(index)]") }
            }
        case .string(let text):
            let length = text.count
            if let minimum = rules["minLength"]?.intValue, length < minimum { found.append("\(path): shorter than \(minimum)") }
            if let maximum = rules["maxLength"]?.intValue, length > maximum { found.append("\(path): longer than \(maximum)") }
            if let pattern = rules["pattern"]?.stringValue, let regex = try? Regex(pattern), text.firstMatch(of: regex) == nil {
                found.append("\(path): \"\(text)\" does not match \(pattern)")
            }
        case .number(let number):
            if let minimum = rules["minimum"]?.doubleValue, number < minimum { found.append("\(path): below \(minimum)") }
            if let maximum = rules["maximum"]?.doubleValue, number > maximum { found.append("\(path): above \(maximum)") }
        default:
            break
        }
        return found
    }

    /// `#/a/b/c` within the document.
    func resolve(_ reference: String) -> JSON? {
        guard reference.hasPrefix("#/") else { return nil }
        var node: JSON? = document
        for part in reference.dropFirst(2).split(separator: "/") { node = node?[String(part)] }
        return node
    }

    static func matches(_ value: JSON, type: String) -> Bool {
        switch (type, value) {
        case ("object", .object), ("array", .array), ("string", .string), ("boolean", .bool), ("null", .null), ("number", .number):
            return true
        case ("integer", .number):
            return value.intValue != nil
        default:
            return false
        }
    }
}
