import FCMMessage
import HeraldJSON

/// The contract form of a campaign, the inverse of `parse`: `parse(spec.toJSON()) == spec` for
/// every valid spec. Members are written in a fixed order and unset ones are left out.
extension CampaignSpec {
    public func toJSON() -> JSON {
        var object: JSONObject = ["name": .string(name)]
        object["notification"] = notification?.toJSON()
        switch audience {
        case .topics(let topics): object["topics"] = .array(topics.map(JSON.string))
        case .condition(let condition): object["condition"] = .string(condition)
        case .segment(let id): object["segment"] = .string(id.description)
        case .tokens(let tokens): object["tokens"] = .array(tokens.map(JSON.string))
        }
        if !data.isEmpty { object["data"] = data.json }
        let optionsJSON = options.toJSON()
        if optionsJSON != .object([:]) { object["options"] = optionsJSON }
        if !variants.isEmpty { object["variants"] = .array(variants.map { $0.toJSON() }) }
        if holdoutPercent != 0 { object["holdout_percent"] = .number(Double(holdoutPercent)) }
        object["schedule"] = schedule?.toJSON()
        if !delivery.isEmpty { object["delivery"] = delivery.toJSON() }
        object["auto_winner"] = autoWinner?.toJSON()
        object["live_activity"] = liveActivity?.toJSON()
        return .object(object)
    }
}

extension NotificationContent {
    /// `{"title", "body", "image"}` with unset members left out.
    public func toJSON() -> JSON {
        var object = JSONObject()
        if let title { object["title"] = .string(title) }
        if let body { object["body"] = .string(body) }
        if let image { object["image"] = .string(image) }
        if !translations.isEmpty {
            object["translations"] = .object(JSONObject(translations.sorted { $0.key < $1.key }.map { ($0.key, $0.value.toJSON()) }))
        }
        return .object(object)
    }
}

extension VariantSpec {
    /// `{"key", "weight", "notification"?, "data"?}`.
    public func toJSON() -> JSON {
        var object: JSONObject = ["key": .string(key), "weight": .number(Double(weight))]
        object["notification"] = notification?.toJSON()
        if !data.isEmpty { object["data"] = data.json }
        return .object(object)
    }
}

extension CampaignOptions {
    /// The `options` object with unset members left out.
    public func toJSON() -> JSON {
        var object = JSONObject()
        func set(_ key: String, _ value: String?) { if let value { object[key] = .string(value) } }
        func set(_ key: String, _ value: Int?) { if let value { object[key] = .number(Double(value)) } }
        set("android_channel_id", androidChannelID)
        set("priority", priority?.rawValue)
        set("sound", sound)
        set("icon", icon)
        set("web_icon", webIcon)
        set("color", color)
        set("click_action", clickAction)
        set("ios_badge", iosBadge)
        set("ios_sound", iosSound)
        set("ios_category", iosCategory)
        set("web_link", webLink)
        set("expiry_seconds", expirySeconds)
        set("analytics_label", analyticsLabel)
        set("labels", labels?.rawValue)
        set("collapse_key", collapseKey)
        if !overrides.isEmpty {
            var blocks = JSONObject()
            if let android = overrides.android { blocks["android"] = .object(android) }
            if let apns = overrides.apns { blocks["apns"] = .object(apns) }
            if let webpush = overrides.webpush { blocks["webpush"] = .object(webpush) }
            object["overrides"] = .object(blocks)
        }
        return .object(object)
    }
}

extension LiveActivity {
    /// `{"event", "content_state", "dismissal_date"?}`.
    public func toJSON() -> JSON {
        var object: JSONObject = ["event": .string(event.rawValue), "content_state": .object(contentState)]
        if let dismissalDate { object["dismissal_date"] = .string(RFC3339.utc(secondsSince1970: dismissalDate.timeIntervalSince1970)) }
        return .object(object)
    }
}
