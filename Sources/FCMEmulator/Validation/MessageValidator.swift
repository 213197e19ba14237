import HeraldJSON

/// A reason FCM refuses a message: the field it is about and what is wrong, in FCM's words.
public struct ValidationFailure: Error, Sendable, Equatable {
    /// The path of the field, like `message.android.ttl`.
    public let field: String
    /// The message of FCM's error body.
    public let message: String
}

/// Validates a v1 message as strictly as FCM does: known fields only at every level, the types
/// and formats of values, exactly one target, and the payload size limit.
public enum MessageValidator {
    /// The payload limit of a message to a registration token.
    public static let tokenPayloadLimit = 4096
    /// The payload limit of a message to a topic or condition.
    public static let topicPayloadLimit = 2048

    /// Nil when FCM would accept `message`, else the first problem found.
    public static func validate(_ message: JSON) -> ValidationFailure? {
        guard let object = message.objectValue else {
            return ValidationFailure(field: "message", message: "Invalid value at 'message' (\(V1Schema.message.typeName)), \(message.serializedString())")
        }
        var path = FieldPath()
        if let failure = check(object, against: V1Schema.message, at: &path) { return failure }
        return checkTarget(object) ?? checkAPNs(object["apns"]?.objectValue) ?? checkSize(object)
    }

    /// Where the check is, like `message.android.ttl`: kept as parts and written out only for a
    /// refusal, since building the text of every field's path was most of a valid message's check.
    struct FieldPath {
        enum Part { case member(String), index(Int), key(String) }
        var parts: [Part] = []

        var text: String {
            parts.reduce(into: "message") { text, part in
                switch part {
                case .member(let name): text += ".\(name)"
                case .index(let index): text += "[\(index)]"
                case .key(let key): text += "[\"\(key)\"]"
                }
            }
        }

        /// Runs `body` with `part` added to the path.
        mutating func with<R>(_ part: Part, _ body: (inout FieldPath) -> R) -> R {
            parts.append(part)
            defer { parts.removeLast() }
            return body(&self)
        }
    }

    private static func check(_ object: JSONObject, against schema: MessageSchema, at path: inout FieldPath) -> ValidationFailure? {
        for (key, value) in object {
            guard let (rule, name) = schema.rule(forKey: key) else {
                return ValidationFailure(field: path.text, message: "Invalid JSON payload received. Unknown name \"\(key)\" at '\(path.text)': Cannot find field.")
            }
            if value.isNull { continue }  // proto3 JSON: null means the field is absent
            if let failure = path.with(.member(name), { check(value, rule: rule, at: &$0) }) { return failure }
        }
        return nil
    }

    private static func check(_ value: JSON, rule: FieldRule, at path: inout FieldPath) -> ValidationFailure? {
        func invalid(_ reason: String? = nil) -> ValidationFailure {
            let suffix = reason.map { ": \($0)" } ?? ""
            let text = path.text
            return ValidationFailure(field: text, message: "Invalid value at '\(text)' (\(rule.typeName)), \(value.serializedString())\(suffix)")
        }
        switch rule {
        case .string(let format):
            guard let text = value.stringValue else { return invalid() }
            return format?(text).map { invalid($0) }
        case .bool:
            return value.boolValue == nil ? invalid() : nil
        case .number:
            return value.doubleValue == nil ? invalid() : nil
        case .integer(let range):
            guard let number = value.intValue ?? value.stringValue.flatMap({ Int($0) }) else { return invalid() }
            return range.contains(number) ? nil : invalid("out of range")
        case .stringMap(let check):
            guard let map = value.objectValue else { return invalid() }
            for (key, entry) in map {
                guard let text = entry.stringValue else {
                    let entryPath = path.with(.key(key)) { $0.text }
                    return ValidationFailure(field: entryPath, message: "Invalid value at '\(entryPath)' (TYPE_STRING), \(entry.serializedString()): map values must be strings")
                }
                if let reason = check?(key, text) {
                    let entryPath = path.with(.key(key)) { $0.text }
                    return ValidationFailure(field: entryPath, message: "Invalid value at '\(entryPath)': \(reason)")
                }
            }
            return nil
        case .list(let element):
            guard let elements = value.arrayValue else { return invalid() }
            for (index, item) in elements.enumerated() {
                if let failure = path.with(.index(index), { check(item, rule: element, at: &$0) }) { return failure }
            }
            return nil
        case .message(let schema):
            guard let object = value.objectValue else { return invalid() }
            return check(object, against: schema, at: &path)
        case .anyObject(let check):
            guard let object = value.objectValue else { return invalid() }
            return check?(object).map { ValidationFailure(field: "\(path.text).\($0.field)", message: "Invalid value at '\(path.text).\($0.field)': \($0.reason)") }
        }
    }

    private static func checkTarget(_ object: JSONObject) -> ValidationFailure? {
        let targets = ["token", "topic", "condition", "fid"].filter { object[$0] != nil && object[$0] != .null }
        guard targets.count == 1 else {
            return targets.isEmpty
                ? ValidationFailure(field: "message", message: "Recipient of the message is not set: exactly one of token, topic, condition or fid is required.")
                : ValidationFailure(field: "message.\(targets[1])",
                                    message: "Invalid value at 'message' (oneof), oneof field 'target' is already set. Cannot overwrite with '\(targets[1])'")
        }
        let value = object[targets[0]]?.stringValue ?? ""
        switch targets[0] {
        case "token":
            return value.isEmpty ? ValidationFailure(field: "message.token", message: "The registration token is empty.") : nil
        case "fid":
            return value.isEmpty ? ValidationFailure(field: "message.fid", message: "The installation ID is empty.") : nil
        case "topic":
            let name = value.hasPrefix("/topics/") ? value.dropFirst("/topics/".count) : Substring(value)
            return FormatRules.isTopicName(name) ? nil
                : ValidationFailure(field: "message.topic", message: "Invalid topic name \"\(value)\": it must match [a-zA-Z0-9-_.~%]+.")
        default:
            if case .failure(let error) = ConditionParser.topics(in: value) {
                return ValidationFailure(field: "message.condition", message: "Invalid condition expression: \(error.description).")
            }
            return nil
        }
    }

    /// What APNs refuses, and FCM with it: `aps` members of the wrong type, a background push
    /// (content-available alone, or the background push type) at priority 10, which Apple accepts
    /// only at 5, and a Live Activity update without its timestamp, event or content state. Checked here on its own terms, so a gap in Herald's renderer or validation shows.
    private static func checkAPNs(_ apns: JSONObject?) -> ValidationFailure? {
        guard let apns else { return nil }
        let headers = apns["headers"]?.objectValue ?? [:]
        func header(_ name: String) -> String? {
            headers.first { $0.key.lowercased() == name }?.value.stringValue
        }
        let aps = apns["payload"]?["aps"]?.objectValue ?? [:]
        func failure(_ member: String, _ reason: String) -> ValidationFailure {
            ValidationFailure(field: "message.apns.\(member)", message: "Invalid value at 'message.apns.\(member)': \(reason)")
        }
        if let badge = aps["badge"], !badge.isNull, badge.intValue == nil {
            return failure("payload.aps.badge", "the badge must be a whole number, found \(badge.serializedString())")
        }
        for flag in ["content-available", "mutable-content"] {
            if let value = aps[flag], !value.isNull, value.intValue != 1 {
                return failure("payload.aps.\(flag)", "\(flag) must be the number 1, found \(value.serializedString())")
            }
        }
        let shows = ["alert", "badge", "sound"].contains { aps[$0] != nil && aps[$0]?.isNull == false }
        let background = header("apns-push-type") == "background" || (aps["content-available"]?.intValue == 1 && !shows)
        if background && header("apns-priority") == "10" {
            return failure("headers.apns-priority", "a background notification must be sent with apns-priority 5; APNs refuses 10")
        }
        if header("apns-push-type") == "background" && aps["alert"] != nil {
            return failure("headers.apns-push-type", "a background push cannot carry an alert; use the alert push type")
        }
        if apns["live_activity_token"] != nil {
            // "Send Live Activity updates": an aps of timestamp, event and content-state, pushed as a Live Activity.
            if let type = header("apns-push-type"), type != "liveactivity" {
                return failure("headers.apns-push-type", "a Live Activity update is pushed as liveactivity, found \(type)")
            }
            if aps["timestamp"]?.intValue == nil {
                return failure("payload.aps.timestamp", "a Live Activity update needs the time of its content in seconds since 1970")
            }
            guard let event = aps["event"]?.stringValue, ["start", "update", "end"].contains(event) else {
                return failure("payload.aps.event", "a Live Activity's event is start, update or end")
            }
            if aps["content-state"]?.objectValue == nil {
                return failure("payload.aps.content-state", "a Live Activity update needs its content-state as an object")
            }
            if let date = aps["dismissal-date"], date.intValue == nil {
                return failure("payload.aps.dismissal-date", "the dismissal date is seconds since 1970")
            }
        }
        return nil
    }

    /// Herald's reading of FCM's limit: the UTF-8 size of the serialized message without its target.
    private static func checkSize(_ object: JSONObject) -> ValidationFailure? {
        var payload = object
        let toToken = object["token"] != nil || object["fid"] != nil
        for target in ["token", "topic", "condition", "fid"] { payload[target] = nil }
        let size = JSON.object(payload).serialized().count
        let limit = toToken ? tokenPayloadLimit : topicPayloadLimit
        guard size > limit else { return nil }
        return ValidationFailure(field: "message",
                                 message: "Message payload is \(size) bytes; the limit is \(limit) bytes for \(toToken ? "a token" : "topic and condition") messages.")
    }
}
