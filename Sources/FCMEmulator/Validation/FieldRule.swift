import HeraldJSON

/// What one field of a v1 message may hold, as FCM's proto schema says.
indirect enum FieldRule: Sendable {
    /// A string, with a check of its format (nil: any string); the check returns a reason to refuse.
    case string(format: (@Sendable (String) -> String?)? = nil)
    case bool
    /// An integer (proto JSON also takes it as a string of digits) within the range.
    case integer(ClosedRange<Int>)
    case number
    /// A `map<string, string>`; the check refuses a key or a value with a reason.
    case stringMap(check: (@Sendable (String, String) -> String?)? = nil)
    /// A list whose elements follow the rule.
    case list(FieldRule)
    /// A nested message with its own known fields.
    case message(MessageSchema)
    /// A `google.protobuf.Struct`: any JSON object, checked only by the optional rule.
    case anyObject(check: (@Sendable (JSONObject) -> (field: String, reason: String)?)? = nil)

    /// The proto type's name, as FCM's "Invalid value at … (TYPE)" messages show it.
    var typeName: String {
        switch self {
        case .string: "TYPE_STRING"
        case .bool: "TYPE_BOOL"
        case .integer: "TYPE_INT32"
        case .number: "TYPE_FLOAT"
        case .stringMap: "map<string, string>"
        case .list: "repeated"
        case .message(let schema): schema.typeName
        case .anyObject: "type.googleapis.com/google.protobuf.Struct"
        }
    }
}

/// A v1 message type: its name and its fields by their proto (snake_case) names.
struct MessageSchema: Sendable {
    let typeName: String
    let fields: [String: FieldRule]

    /// The rule for a key as sent, with the field's proto name. Like the proto3 JSON parser, FCM
    /// accepts a field's proto name (`click_action`) and its lowerCamelCase JSON name (`clickAction`).
    func rule(forKey key: String) -> (rule: FieldRule, name: String)? {
        if let rule = fields[key] { return (rule, key) }
        guard !key.contains("_"), key.contains(where: \.isUppercase) else { return nil }
        var snake = ""
        for character in key {
            if character.isUppercase { snake += "_" + character.lowercased() } else { snake.append(character) }
        }
        return fields[snake].map { ($0, snake) }
    }
}
