import HeraldJSON

/// Why a JSON value is not a v1 message: every problem found, each with its path
/// (`android.notification.color`) and a machine code, as FCM's INVALID_ARGUMENT would name it.
public struct MessageFormatError: Error, Sendable, Equatable, CustomStringConvertible {
    public var issues: [JSONIssue]

    public init(issues: [JSONIssue]) {
        self.issues = issues
    }

    public var description: String { issues.map(\.description).joined(separator: "; ") }
}

/// Decoding from the v1 REST form, strictly: unknown members, wrong types, malformed enumerations
/// and durations, and a missing or doubled target are errors, all reported at once. (Value rules
/// such as topic names, colours and https links are `problems()`, not decoding.)
extension Message {
    /// The message in `json` (the `message` object of a send request).
    public static func fromJSON(_ json: JSON) throws(MessageFormatError) -> Message {
        var reader = JSONReader()
        let message = decode(json, reader: &reader)
        if let message, reader.issues.isEmpty { return message }
        throw MessageFormatError(issues: reader.issues)
    }

    static let fieldNames: Set<String> = [
        "name", "token", "topic", "condition", "fid", "notification", "data", "android", "apns", "webpush", "fcm_options",
    ]

    static func decode(_ json: JSON, reader: inout JSONReader) -> Message? {
        guard let object = reader.object(json, at: "") else { return nil }
        reader.rejectUnknown(object, known: fieldNames, at: "")
        var targets: [Target] = []
        if let token = reader.string(object, "token", at: "") { targets.append(.token(token)) }
        if let topic = reader.string(object, "topic", at: "") { targets.append(.topic(topic)) }
        if let condition = reader.string(object, "condition", at: "") { targets.append(.condition(condition)) }
        if let fid = reader.string(object, "fid", at: "") { targets.append(.fid(fid)) }
        _ = reader.string(object, "name", at: "")  // output only; FCM ignores it on send
        if targets.count != 1 {
            reader.report("", targets.isEmpty ? "required" : "conflict",
                "a message needs exactly one of \"token\", \"topic\", \"condition\" or \"fid\"")
        }
        var message = Message(target: targets.first ?? .topic(""))
        if let notification = reader.object(object, "notification", at: "") {
            reader.rejectUnknown(notification, known: ["title", "body", "image"], at: "notification")
            message.notification = Notification(
                title: reader.string(notification, "title", at: "notification"),
                body: reader.string(notification, "body", at: "notification"),
                image: reader.string(notification, "image", at: "notification"))
        }
        message.data = reader.stringMap(object, "data", at: "").map { StringMap($0) }
        if let android = reader.object(object, "android", at: "") {
            message.android = AndroidConfig.decode(android, at: "android", reader: &reader)
        }
        if let apns = reader.object(object, "apns", at: "") {
            message.apns = APNSConfig.decode(apns, at: "apns", reader: &reader)
        }
        if let webpush = reader.object(object, "webpush", at: "") {
            message.webpush = WebpushConfig.decode(webpush, at: "webpush", reader: &reader)
        }
        if let options = reader.object(object, "fcm_options", at: "") {
            reader.rejectUnknown(options, known: ["analytics_label"], at: "fcm_options")
            message.fcmOptions = FCMOptions(analyticsLabel: reader.string(options, "analytics_label", at: "fcm_options"))
        }
        return message
    }
}

extension JSONReader {
    /// A string member that must be one of `allowed`.
    mutating func oneOf(_ object: JSONObject, _ key: String, at parent: String, _ allowed: [String]) -> String? {
        guard let value = string(object, key, at: parent) else { return nil }
        guard allowed.contains(value) else {
            report(Self.path(parent, key), "invalid_value",
                "must be one of \(allowed.joined(separator: ", ")), found \"\(value)\"")
            return nil
        }
        return value
    }

    /// A duration member ("86400s", "3.5s").
    mutating func duration(_ object: JSONObject, _ key: String, at parent: String) -> ProtoDuration? {
        guard let text = string(object, key, at: parent) else { return nil }
        guard let duration = ProtoDuration(text) else {
            report(Self.path(parent, key), "invalid_duration",
                "expected a duration in seconds such as \"86400s\" or \"3.5s\", found \"\(text)\"")
            return nil
        }
        return duration
    }

    mutating func stringMapValue(_ object: JSONObject, _ key: String, at parent: String) -> StringMap? {
        stringMap(object, key, at: parent).map { StringMap($0) }
    }
}

extension AndroidConfig {
    static func decode(_ object: JSONObject, at path: String, reader: inout JSONReader) -> AndroidConfig {
        reader.rejectUnknown(object, known: [
            "collapse_key", "priority", "ttl", "restricted_package_name", "data", "notification", "fcm_options",
            "direct_boot_ok", "bandwidth_constrained_ok", "restricted_satellite_ok",
        ], at: path)
        var config = AndroidConfig()
        config.collapseKey = reader.string(object, "collapse_key", at: path)
        config.priority = reader.oneOf(object, "priority", at: path, ["NORMAL", "HIGH"]).flatMap(Priority.init(rawValue:))
        config.ttl = reader.duration(object, "ttl", at: path)
        config.restrictedPackageName = reader.string(object, "restricted_package_name", at: path)
        config.data = reader.stringMapValue(object, "data", at: path)
        if let notification = reader.object(object, "notification", at: path) {
            config.notification = AndroidNotification.decode(notification, at: JSONReader.path(path, "notification"), reader: &reader)
        }
        let optionsPath = JSONReader.path(path, "fcm_options")
        if let options = reader.object(object, "fcm_options", at: path) {
            reader.rejectUnknown(options, known: ["analytics_label"], at: optionsPath)
            config.analyticsLabel = reader.string(options, "analytics_label", at: optionsPath)
        }
        config.directBootOk = reader.bool(object, "direct_boot_ok", at: path)
        config.bandwidthConstrainedOk = reader.bool(object, "bandwidth_constrained_ok", at: path)
        config.restrictedSatelliteOk = reader.bool(object, "restricted_satellite_ok", at: path)
        return config
    }
}

extension AndroidNotification {
    static func decode(_ object: JSONObject, at path: String, reader: inout JSONReader) -> AndroidNotification {
        reader.rejectUnknown(object, known: [
            "title", "body", "icon", "color", "sound", "tag", "click_action", "body_loc_key", "body_loc_args",
            "title_loc_key", "title_loc_args", "channel_id", "ticker", "sticky", "event_time", "local_only",
            "notification_priority", "default_sound", "default_vibrate_timings", "default_light_settings",
            "vibrate_timings", "visibility", "notification_count", "light_settings", "image",
            "bypass_proxy_notification", "proxy",
        ], at: path)
        var n = AndroidNotification()
        n.title = reader.string(object, "title", at: path)
        n.body = reader.string(object, "body", at: path)
        n.icon = reader.string(object, "icon", at: path)
        n.color = reader.string(object, "color", at: path)
        n.sound = reader.string(object, "sound", at: path)
        n.tag = reader.string(object, "tag", at: path)
        n.clickAction = reader.string(object, "click_action", at: path)
        n.bodyLocKey = reader.string(object, "body_loc_key", at: path)
        n.bodyLocArgs = reader.strings(object, "body_loc_args", at: path)
        n.titleLocKey = reader.string(object, "title_loc_key", at: path)
        n.titleLocArgs = reader.strings(object, "title_loc_args", at: path)
        n.channelID = reader.string(object, "channel_id", at: path)
        n.ticker = reader.string(object, "ticker", at: path)
        n.sticky = reader.bool(object, "sticky", at: path)
        n.eventTime = reader.string(object, "event_time", at: path)
        if let time = n.eventTime, RFC3339.offsetMinutes(time) == nil {
            reader.report(JSONReader.path(path, "event_time"), "invalid_value",
                          "expected an RFC 3339 time such as \"2026-11-22T09:30:00Z\", found \"\(time)\"")
        }
        n.localOnly = reader.bool(object, "local_only", at: path)
        n.notificationPriority = reader.oneOf(object, "notification_priority", at: path, [
            "PRIORITY_UNSPECIFIED", "PRIORITY_MIN", "PRIORITY_LOW", "PRIORITY_DEFAULT", "PRIORITY_HIGH", "PRIORITY_MAX",
        ])
        n.defaultSound = reader.bool(object, "default_sound", at: path)
        n.defaultVibrateTimings = reader.bool(object, "default_vibrate_timings", at: path)
        n.defaultLightSettings = reader.bool(object, "default_light_settings", at: path)
        n.vibrateTimings = reader.strings(object, "vibrate_timings", at: path)
        for (index, timing) in (n.vibrateTimings ?? []).enumerated() where ProtoDuration(timing) == nil {
            reader.report(JSONReader.path(JSONReader.path(path, "vibrate_timings"), index: index), "invalid_duration",
                "expected a duration such as \"0.5s\", found \"\(timing)\"")
        }
        n.visibility = reader.oneOf(object, "visibility", at: path, ["VISIBILITY_UNSPECIFIED", "PRIVATE", "PUBLIC", "SECRET"])
        n.notificationCount = reader.int(object, "notification_count", at: path)
        if let settings = reader.object(object, "light_settings", at: path) {
            Self.checkLightSettings(settings, at: JSONReader.path(path, "light_settings"), reader: &reader)
            n.lightSettings = .object(settings)
        }
        n.image = reader.string(object, "image", at: path)
        n.bypassProxyNotification = reader.bool(object, "bypass_proxy_notification", at: path)
        n.proxy = reader.oneOf(object, "proxy", at: path, ["PROXY_UNSPECIFIED", "ALLOW", "DENY", "IF_PRIORITY_LOWERED"])
        return n
    }
}

extension APNSConfig {
    static func decode(_ object: JSONObject, at path: String, reader: inout JSONReader) -> APNSConfig {
        reader.rejectUnknown(object, known: ["headers", "payload", "fcm_options", "live_activity_token"], at: path)
        var config = APNSConfig()
        config.headers = reader.stringMapValue(object, "headers", at: path)
        if let headers = config.headers { Self.checkHeaders(headers, at: JSONReader.path(path, "headers"), reader: &reader) }
        if let payload = reader.object(object, "payload", at: path) {
            if let aps = reader.object(payload, "aps", at: JSONReader.path(path, "payload")) {
                Self.checkAPS(aps, at: JSONReader.path(JSONReader.path(path, "payload"), "aps"), reader: &reader)
            }
            config.payload = .object(payload)
        }
        let optionsPath = JSONReader.path(path, "fcm_options")
        if let options = reader.object(object, "fcm_options", at: path) {
            reader.rejectUnknown(options, known: ["analytics_label", "image"], at: optionsPath)
            config.analyticsLabel = reader.string(options, "analytics_label", at: optionsPath)
            config.image = reader.string(options, "image", at: optionsPath)
        }
        config.liveActivityToken = reader.string(object, "live_activity_token", at: path)
        return config
    }
}

extension WebpushConfig {
    static func decode(_ object: JSONObject, at path: String, reader: inout JSONReader) -> WebpushConfig {
        reader.rejectUnknown(object, known: ["headers", "data", "notification", "fcm_options"], at: path)
        var config = WebpushConfig()
        config.headers = reader.stringMapValue(object, "headers", at: path)
        config.data = reader.stringMapValue(object, "data", at: path)
        if let notification = reader.object(object, "notification", at: path) { config.notification = .object(notification) }
        let optionsPath = JSONReader.path(path, "fcm_options")
        if let options = reader.object(object, "fcm_options", at: path) {
            reader.rejectUnknown(options, known: ["link", "analytics_label"], at: optionsPath)
            config.link = reader.string(options, "link", at: optionsPath)
            config.analyticsLabel = reader.string(options, "analytics_label", at: optionsPath)
        }
        return config
    }
}

extension AndroidNotification {
    /// `LightSettings`: a `Color` (red, green, blue and optional alpha, each 0 to 1) and the on
    /// and off durations, all three required by the v1 API.
    static func checkLightSettings(_ settings: JSONObject, at path: String, reader: inout JSONReader) {
        reader.rejectUnknown(settings, known: ["color", "light_on_duration", "light_off_duration"], at: path)
        let colorPath = JSONReader.path(path, "color")
        if let color = reader.object(settings, "color", at: path, required: true) {
            reader.rejectUnknown(color, known: ["red", "green", "blue", "alpha"], at: colorPath)
            for channel in ["red", "green", "blue", "alpha"] {
                guard let value = color[channel] else {
                    if channel != "alpha" { reader.report(JSONReader.path(colorPath, channel), "required", "\(channel) is required, from 0 to 1") }
                    continue
                }
                guard let number = value.doubleValue, (0...1).contains(number) else {
                    reader.report(JSONReader.path(colorPath, channel), "out_of_range", "\(channel) is a number from 0 to 1")
                    continue
                }
            }
        }
        for key in ["light_on_duration", "light_off_duration"] {
            guard let text = reader.string(settings, key, at: path, required: true) else { continue }
            if ProtoDuration(text) == nil {
                reader.report(JSONReader.path(path, key), "invalid_duration", "expected a duration such as \"0.5s\", found \"\(text)\"")
            }
        }
    }
}

extension APNSConfig {
    /// The headers whose values Apple fixes: `apns-push-type` one of its push types, `apns-priority`
    /// 10, 5 or 1 (names compared as HTTP compares them, without case).
    static func checkHeaders(_ headers: StringMap, at path: String, reader: inout JSONReader) {
        for (name, value) in headers {
            switch name.lowercased() {
            case "apns-push-type" where !pushTypes.contains(value):
                reader.report(JSONReader.path(path, name), "invalid_value",
                              "apns-push-type is one of Apple's push types (\(pushTypes.joined(separator: ", "))), found \"\(value)\"")
            case "apns-priority" where !priorities.contains(value):
                reader.report(JSONReader.path(path, name), "invalid_value", "apns-priority is \"10\", \"5\" or \"1\", found \"\(value)\"")
            default: break
            }
        }
    }

    /// The `aps` members Apple types strictly: `badge` a whole number ≥ 0, `mutable-content` and
    /// `content-available` the number 1.
    static func checkAPS(_ aps: JSONObject, at path: String, reader: inout JSONReader) {
        if let badge = aps["badge"], badge.intValue.map({ $0 >= 0 }) != true {
            reader.report(JSONReader.path(path, "badge"), "wrong_type", "badge is a whole number, 0 or more")
        }
        for flag in ["mutable-content", "content-available"] {
            if let value = aps[flag], value != .number(1) {
                reader.report(JSONReader.path(path, flag), "invalid_value", "\(flag) is the number 1 (or left out)")
            }
        }
    }
}
