import HeraldJSON

/// Encoding to the v1 REST form: snake_case names, string header values, `ttl` as "86400s",
/// members in a fixed order, unset members (and empty objects) left out.
extension Message {
    /// The `message` object of a v1 send request.
    public func json() -> JSON {
        var object = JSONObject()
        object[target.fieldName] = .string(target.value)
        object["notification"] = notification.flatMap { $0.jsonIfAny() }
        object["data"] = data.map(\.json)
        object["android"] = android.flatMap { $0.jsonIfAny() }
        object["apns"] = apns.flatMap { $0.jsonIfAny() }
        object["webpush"] = webpush.flatMap { $0.jsonIfAny() }
        if let label = fcmOptions?.analyticsLabel {
            object["fcm_options"] = ["analytics_label": .string(label)]
        }
        return .object(object)
    }

    /// The `message` object without its target member: what Herald counts against FCM's payload
    /// limit (UTF-8 bytes of this, serialized compactly).
    public func jsonWithoutTarget() -> JSON {
        guard var object = json().objectValue else { return json() }
        object[target.fieldName] = nil
        return .object(object)
    }

    /// The bytes Herald counts against FCM's payload limit.
    public var payloadSize: Int { jsonWithoutTarget().serialized().count }

    /// The body of `POST /v1/projects/{project}/messages:send`:
    /// `{"message": {...}, "validate_only": false}`.
    public func sendBody(validateOnly: Bool) -> [UInt8] {
        let body: JSON = ["message": json(), "validate_only": .bool(validateOnly)]
        return body.serialized()
    }
}

extension StringMap {
    /// The map as a JSON object of strings.
    public var json: JSON {
        .object(JSONObject(pairs.map { ($0.key, JSON.string($0.value)) }))
    }
}

/// Builds an object member by member, leaving out nils and empty objects.
struct ObjectBuilder {
    var object = JSONObject()
    mutating func set(_ key: String, _ value: String?) { if let value { object[key] = .string(value) } }
    mutating func set(_ key: String, _ value: Bool?) { if let value { object[key] = .bool(value) } }
    mutating func set(_ key: String, _ value: Int?) { if let value { object[key] = .number(Double(value)) } }
    mutating func set(_ key: String, _ value: [String]?) { if let value { object[key] = .array(value.map(JSON.string)) } }
    mutating func set(_ key: String, _ value: StringMap?) { if let value { object[key] = value.json } }
    mutating func set(_ key: String, json value: JSON?) {
        if let value, value != .object([:]) { object[key] = value }
    }
    var result: JSON? { object.isEmpty ? nil : .object(object) }
}

extension Message.Notification {
    func jsonIfAny() -> JSON? {
        var builder = ObjectBuilder()
        builder.set("title", title)
        builder.set("body", body)
        builder.set("image", image)
        return builder.result
    }
}

extension AndroidConfig {
    func jsonIfAny() -> JSON? {
        var builder = ObjectBuilder()
        builder.set("collapse_key", collapseKey)
        builder.set("priority", priority?.rawValue)
        builder.set("ttl", ttl?.description)
        builder.set("restricted_package_name", restrictedPackageName)
        builder.set("data", data)
        builder.set("notification", json: notification?.jsonIfAny())
        if let analyticsLabel { builder.object["fcm_options"] = ["analytics_label": .string(analyticsLabel)] }
        builder.set("direct_boot_ok", directBootOk)
        builder.set("bandwidth_constrained_ok", bandwidthConstrainedOk)
        builder.set("restricted_satellite_ok", restrictedSatelliteOk)
        return builder.result
    }
}

extension AndroidNotification {
    func jsonIfAny() -> JSON? {
        var builder = ObjectBuilder()
        builder.set("title", title)
        builder.set("body", body)
        builder.set("icon", icon)
        builder.set("color", color)
        builder.set("sound", sound)
        builder.set("tag", tag)
        builder.set("click_action", clickAction)
        builder.set("body_loc_key", bodyLocKey)
        builder.set("body_loc_args", bodyLocArgs)
        builder.set("title_loc_key", titleLocKey)
        builder.set("title_loc_args", titleLocArgs)
        builder.set("channel_id", channelID)
        builder.set("ticker", ticker)
        builder.set("sticky", sticky)
        builder.set("event_time", eventTime)
        builder.set("local_only", localOnly)
        builder.set("notification_priority", notificationPriority)
        builder.set("default_sound", defaultSound)
        builder.set("default_vibrate_timings", defaultVibrateTimings)
        builder.set("default_light_settings", defaultLightSettings)
        builder.set("vibrate_timings", vibrateTimings)
        builder.set("visibility", visibility)
        builder.set("notification_count", notificationCount)
        builder.set("light_settings", json: lightSettings)
        builder.set("image", image)
        builder.set("bypass_proxy_notification", bypassProxyNotification)
        builder.set("proxy", proxy)
        return builder.result
    }
}

extension APNSConfig {
    func jsonIfAny() -> JSON? {
        var builder = ObjectBuilder()
        builder.set("headers", headers)
        builder.set("payload", json: payload)
        var options = ObjectBuilder()
        options.set("analytics_label", analyticsLabel)
        options.set("image", image)
        builder.set("fcm_options", json: options.result)
        builder.set("live_activity_token", liveActivityToken)
        return builder.result
    }
}

extension WebpushConfig {
    func jsonIfAny() -> JSON? {
        var builder = ObjectBuilder()
        builder.set("headers", headers)
        builder.set("data", data)
        builder.set("notification", json: notification)
        var options = ObjectBuilder()
        options.set("link", link)
        options.set("analytics_label", analyticsLabel)
        builder.set("fcm_options", json: options.result)
        return builder.result
    }
}
