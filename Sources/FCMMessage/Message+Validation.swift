import HeraldJSON

/// The value rules FCM applies to a well-formed message (reference/fcm.md): target syntax,
/// reserved data keys, colours, analytics labels, https links, header formats, the TTL range and
/// the payload size. Herald checks them before sending, and the emulator answers
/// INVALID_ARGUMENT for them.
extension Message.Target {
    /// FCM's payload limit for messages to this target, in bytes.
    public var payloadLimit: Int {
        switch self {
        case .token, .fid: Message.tokenPayloadLimit
        case .topic, .condition: Message.topicPayloadLimit
        }
    }
}

extension Message {
    /// Payload limit for topic and condition messages, in bytes.
    public static let topicPayloadLimit = 2048
    /// Payload limit for token messages, in bytes.
    public static let tokenPayloadLimit = 4096
    /// The longest Android TTL FCM accepts: four weeks.
    public static let maximumTTLSeconds = 2_419_200

    /// The payload limit that applies to this message's target.
    public var payloadLimit: Int { target.payloadLimit }

    /// Every rule this message breaks (empty when FCM would accept it).
    public func problems() -> [JSONIssue] {
        var issues = JSONReader()
        switch target {
        case .token(let token):
            if token.isEmpty { issues.report("token", "required", "the registration token is empty") }
        case .fid(let fid):
            if fid.isEmpty { issues.report("fid", "required", "the installation ID is empty") }
        case .topic(let topic):
            if !TopicName.isValid(TopicName.stripPrefix(topic)) {
                issues.report("topic", "invalid_topic",
                    "a topic name has letters, digits and - _ . ~ % only (after an optional /topics/), found \"\(topic)\"")
            }
        case .condition(let condition):
            do {
                let parsed = try TopicCondition.parse(condition)
                if parsed.topicCount > TopicCondition.maximumTopics {
                    issues.report("condition", "too_many_topics",
                        "a condition may name at most \(TopicCondition.maximumTopics) topics, found \(parsed.topicCount)",
                        limit: TopicCondition.maximumTopics)
                }
            } catch {
                issues.report("condition", "invalid_condition", error.description)
            }
        }
        Self.checkData(data, at: "data", into: &issues)
        if let android {
            Self.checkData(android.data, at: "android.data", into: &issues)
            Self.checkLabel(android.analyticsLabel, at: "android.fcm_options.analytics_label", into: &issues)
            if let ttl = android.ttl, ttl.seconds > Self.maximumTTLSeconds
                || (ttl.seconds == Self.maximumTTLSeconds && ttl.nanos > 0) {
                issues.report("android.ttl", "out_of_range",
                    "the TTL is at most \(Self.maximumTTLSeconds)s (4 weeks), found \(ttl)", limit: Self.maximumTTLSeconds)
            }
            if let color = android.notification?.color, !Self.isColor(color) {
                issues.report("android.notification.color", "invalid_color", "expected a colour as #rrggbb, found \"\(color)\"")
            }
            if let count = android.notification?.notificationCount, count < 0 {
                issues.report("android.notification.notification_count", "out_of_range", "must not be negative", limit: 0)
            }
        }
        if let apns {
            Self.checkLabel(apns.analyticsLabel, at: "apns.fcm_options.analytics_label", into: &issues)
            Self.checkAPNSHeaders(apns.headers, into: &issues)
            if let payload = apns.payload, let aps = payload["aps"], aps.objectValue == nil {
                issues.report("apns.payload.aps", "wrong_type", "expected an object, found \(aps.typeName)")
            }
        }
        if let webpush {
            Self.checkData(webpush.data, at: "webpush.data", into: &issues)
            Self.checkLabel(webpush.analyticsLabel, at: "webpush.fcm_options.analytics_label", into: &issues)
            if let link = webpush.link, !Self.isHTTPS(link) {
                issues.report("webpush.fcm_options.link", "not_https", "the link must be an https URL, found \"\(link)\"")
            }
            if let ttl = webpush.headers?["TTL"], Int(ttl) == nil || ttl.hasPrefix("-") || ttl.hasPrefix("+") {
                issues.report("webpush.headers.TTL", "invalid_value", "expected whole seconds, found \"\(ttl)\"")
            }
            if let urgency = webpush.headers?["Urgency"], !["very-low", "low", "normal", "high"].contains(urgency) {
                issues.report("webpush.headers.Urgency", "invalid_value",
                    "must be one of very-low, low, normal, high, found \"\(urgency)\"")
            }
        }
        Self.checkLabel(fcmOptions?.analyticsLabel, at: "fcm_options.analytics_label", into: &issues)
        let size = payloadSize
        if size > payloadLimit {
            issues.report("", "payload_too_large",
                "the message is \(size) bytes; FCM accepts at most \(payloadLimit) bytes for \(target.fieldName) messages",
                limit: payloadLimit)
        }
        return issues.issues
    }

    /// Whether `key` is one FCM reserves (`from`, `message_type`, `google.*`, `gcm.*`).
    public static func isReservedDataKey(_ key: String) -> Bool {
        key == "from" || key == "message_type" || key.hasPrefix("google.") || key.hasPrefix("gcm.")
    }

    /// Whether `text` matches the analytics label pattern `^[a-zA-Z0-9-_.~%]{1,50}$`.
    public static func isAnalyticsLabel(_ text: String) -> Bool {
        (1...50).contains(text.unicodeScalars.count) && text.unicodeScalars.allSatisfy(TopicName.isAllowed)
    }

    /// Whether `text` is `#rrggbb`.
    public static func isColor(_ text: String) -> Bool {
        let scalars = Array(text.unicodeScalars)
        return scalars.count == 7 && scalars[0] == "#" && scalars.dropFirst().allSatisfy { $0.properties.isASCIIHexDigit }
    }

    /// Whether `text` is an absolute https URL with a host.
    public static func isHTTPS(_ text: String) -> Bool { isAbsoluteURL(text, scheme: "https") }

    /// Whether `text` is an absolute URL of `scheme` with a host and no white space.
    public static func isAbsoluteURL(_ text: String, scheme: String) -> Bool {
        guard text.lowercased().hasPrefix(scheme + "://") else { return false }
        let rest = text.dropFirst(scheme.count + 3)
        let host = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        return !host.isEmpty && !text.contains(where: { $0.isWhitespace })
    }

    static func checkData(_ data: StringMap?, at path: String, into issues: inout JSONReader) {
        for key in data?.keys ?? [] where isReservedDataKey(key) {
            issues.report(JSONReader.path(path, key), "reserved_key",
                "\"\(key)\" is reserved by FCM (from, message_type, google.*, gcm.*)")
        }
    }

    static func checkLabel(_ label: String?, at path: String, into issues: inout JSONReader) {
        if let label, !isAnalyticsLabel(label) {
            issues.report(path, "invalid_label",
                "an analytics label has 1 to 50 letters, digits and - _ . ~ % only, found \"\(label)\"", limit: 50)
        }
    }

    static func checkAPNSHeaders(_ headers: StringMap?, into issues: inout JSONReader) {
        if let priority = headers?["apns-priority"], !["1", "5", "10"].contains(priority) {
            issues.report("apns.headers.apns-priority", "invalid_value", "must be \"10\", \"5\" or \"1\", found \"\(priority)\"")
        }
        if let expiration = headers?["apns-expiration"], expiration.isEmpty || !expiration.allSatisfy({ $0.isASCII && $0.isNumber }) {
            issues.report("apns.headers.apns-expiration", "invalid_value", "expected epoch seconds, found \"\(expiration)\"")
        }
    }
}
