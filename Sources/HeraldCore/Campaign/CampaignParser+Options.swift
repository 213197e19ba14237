import FCMMessage
import HeraldJSON

extension CampaignParser {
    static let optionFields: Set<String> = [
        "android_channel_id", "priority", "sound", "icon", "web_icon", "color", "click_action", "ios_badge",
        "ios_sound", "ios_category", "web_link", "expiry_seconds", "analytics_label", "labels", "collapse_key", "overrides",
    ]

    mutating func parseOptions(_ object: JSONObject, at path: String) -> CampaignOptions {
        reader.rejectUnknown(object, known: Self.optionFields, at: path)
        let short = CampaignLimits.optionCharacters
        var options = CampaignOptions()
        options.androidChannelID = text(object, "android_channel_id", at: path, limit: short)
        if let priority = reader.string(object, "priority", at: path) {
            options.priority = CampaignOptions.Priority(rawValue: priority)
            if options.priority == nil {
                reader.report(JSONReader.path(path, "priority"), "invalid_value",
                    "must be \"high\" or \"normal\", found \"\(priority)\"")
            }
        }
        options.sound = text(object, "sound", at: path, limit: short)
        options.icon = text(object, "icon", at: path, limit: short)
        options.webIcon = url(object, "web_icon", at: path)
        options.color = text(object, "color", at: path, limit: short)
        if let color = options.color, !Message.isColor(color) {
            reader.report(JSONReader.path(path, "color"), "invalid_color", "expected a color as #rrggbb (such as #1a73e8), found \"\(color)\"")
        }
        options.clickAction = text(object, "click_action", at: path, limit: short)
        options.iosBadge = ranged(object, "ios_badge", at: path, 0...CampaignLimits.maximumBadge)
        options.iosSound = text(object, "ios_sound", at: path, limit: short)
        options.iosCategory = text(object, "ios_category", at: path, limit: short)
        options.webLink = url(object, "web_link", at: path)
        options.expirySeconds = ranged(object, "expiry_seconds", at: path, 0...CampaignLimits.maximumExpirySeconds)
        if let label = reader.string(object, "analytics_label", at: path), !label.isEmpty {
            if Message.isAnalyticsLabel(label) {
                options.analyticsLabel = label
            } else {
                reader.report(JSONReader.path(path, "analytics_label"), "invalid_label",
                    "an analytics label has 1 to 50 letters, digits and - _ . ~ % only, found \"\(label)\"",
                    limit: CampaignLimits.analyticsLabelCharacters)
            }
        }
        if let labels = reader.string(object, "labels", at: path) {
            options.labels = LabelMode(rawValue: labels)
            if options.labels == nil {
                reader.report(JSONReader.path(path, "labels"), "invalid_value",
                    "must be one of \(LabelMode.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")), found \"\(labels)\"")
            }
        }
        if let key = reader.string(object, "collapse_key", at: path), !key.isEmpty {
            options.collapseKey = key
            if !Self.isCollapseKey(key) {
                reader.report(JSONReader.path(path, "collapse_key"), "invalid_value",
                    "a collapse key has 1 to 32 letters, digits, - and _ only (so that APNs and Web Push accept it too), found \"\(key)\"",
                    limit: CampaignLimits.collapseKeyCharacters)
            }
        }
        if let overrides = reader.object(object, "overrides", at: path) {
            options.overrides = parseOverrides(overrides, at: JSONReader.path(path, "overrides"))
        }
        return options
    }

    /// An integer option within `range`.
    mutating func ranged(_ object: JSONObject, _ key: String, at parent: String, _ range: ClosedRange<Int>) -> Int? {
        guard let value = reader.int(object, key, at: parent) else { return nil }
        guard range.contains(value) else {
            reader.report(JSONReader.path(parent, key), "out_of_range",
                "must be from \(range.lowerBound) to \(range.upperBound), found \(value)", limit: range.upperBound)
            return nil
        }
        return value
    }

    static func isCollapseKey(_ key: String) -> Bool {
        (1...CampaignLimits.collapseKeyCharacters).contains(key.unicodeScalars.count)
            && key.unicodeScalars.allSatisfy { scalar in
                switch scalar {
                case "a"..."z", "A"..."Z", "0"..."9", "_", "-": true
                default: false
                }
            }
    }

    /// Raw `android`/`apns`/`webpush` blocks: each must be a v1 block FCM accepts on its own.
    mutating func parseOverrides(_ object: JSONObject, at path: String) -> PlatformOverrides {
        reader.rejectUnknown(object, known: ["android", "apns", "webpush"], at: path)
        var overrides = PlatformOverrides()
        for platform in ["android", "apns", "webpush"] {
            guard let block = reader.object(object, platform, at: path) else { continue }
            // Checked as the only block of a token message, so FCM's own rules apply to it; a
            // `null` member means "remove the rendered member" and is no value of its own.
            var probe: JSONObject = ["token": "probe"]
            probe[platform] = JSON.object([:]).mergePatched(with: .object(block))
            do {
                let message = try Message.fromJSON(.object(probe))
                reader.append(message.problems().filter { $0.code != "payload_too_large" }, under: path)
            } catch {
                reader.append(error.issues, under: path)
            }
            switch platform {
            case "android": overrides.android = block
            case "apns": overrides.apns = block
            default: overrides.webpush = block
            }
        }
        return overrides
    }
}
