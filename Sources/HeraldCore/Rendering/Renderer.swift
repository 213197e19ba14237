import Foundation
import FCMMessage
import HeraldJSON

/// Who one v1 request goes to: a topic, a condition over topics, or one registration token.
public typealias Target = Message.Target

/// Renders one variant of a campaign into one v1 message for one target. Pure: the send time is
/// a parameter, not read from a clock.
///
/// A campaign says each idea once; the renderer writes every platform's own field for it
/// (reference/fcm.md, "One idea, each platform's field"):
///
/// | option | android | apns | webpush |
/// | --- | --- | --- | --- |
/// | `expiry_seconds` N | `ttl` "Ns" | header `apns-expiration` = send time + N (epoch s; "0" when N = 0: deliver now or never) | header `TTL` "N" |
/// | `priority` | `priority` HIGH/NORMAL | header `apns-priority` "10"/"5" ("5", `apns-push-type: background` and `content-available: 1` for a data-only message) | header `Urgency` high/normal |
/// | `notification.image` | `notification.image` | `fcm_options.image` + `aps.mutable-content` 1 | `notification.image` |
/// | `click_action` | `notification.click_action` | `aps.category` (unless `ios_category`) | — |
/// | `web_link` | — | — | `fcm_options.link` |
/// | `sound` | `notification.sound` | `aps.sound` (unless `ios_sound`) | — |
/// | `ios_badge` | `notification.notification_count` | `aps.badge` | — |
/// | `icon` / `web_icon` | `notification.icon` (drawable name) | — | `notification.icon` (`web_icon`, a URL) |
/// | `color` | `notification.color` | — | — |
/// | `android_channel_id` | `notification.channel_id` | — | — |
/// | `collapse_key` | `collapse_key` | header `apns-collapse-id` | header `Topic` |
/// | analytics label | top-level `fcm_options.analytics_label`, which FCM applies to every platform |
/// | `live_activity` | — | `live_activity_token` (the device's), `apns-push-type: liveactivity`, `aps` of `timestamp`, `event`, `content-state`, title and text as `alert`, `dismissal-date` | — |
///
/// Title and body go in the common `notification`; the data in the common `data`. The image is
/// written to each platform's own field, as the seeds do, rather than also to the common
/// `notification.image`: that would repeat the URL inside the 2048-byte topic budget.
/// Nothing unset is written (no empty objects). `options.overrides` are deep-merged last.
public enum Renderer {
    /// The message for `variant` of `campaign` sent to `target` at `sendTime`. `campaignID`
    /// names the default analytics label ("herald-<id>-<key>"); without it and without an
    /// explicit `analytics_label`, no label is written. A derived label is left out when it alone
    /// would push the message over FCM's payload limit (so 1000 characters of Persian text still
    /// go to a topic); an explicit label is always written and counted when the campaign is checked.
    ///
    /// A Live Activity campaign renders the Apple block alone (`liveActivityAPNs`), for the
    /// device's `liveActivityToken` (a stand-in as long as any token when there is no device).
    public static func render(
        campaign: CampaignSpec, variant: Variant, target: Target, campaignID: String?, sendTime: Date, liveActivityToken: String? = nil
    ) -> Message {
        let options = campaign.options
        let content = variant.notification
        var message = Message(target: target)
        // The variant's activity has its content state's variables filled in for the device.
        if let activity = campaign.liveActivity.map({ variant.liveActivity ?? $0 }) {
            message.apns = liveActivityAPNs(activity, options, content, token: liveActivityToken ?? LiveActivity.placeholderToken, sendTime: sendTime)
        } else {
            if content.hasText {
                message.notification = Message.Notification(title: content.title, body: content.body)
            }
            message.data = variant.data.isEmpty ? nil : variant.data
            message.android = android(options, content)
            message.apns = apns(options, content, sendTime: sendTime, ownPushType: options.overrides.namesItsOwnAPNsPushType)
            message.webpush = webpush(options, content)
        }
        if let label = analyticsLabel(campaign: campaign, variantKey: variant.key, campaignID: campaignID) {
            message.fcmOptions = Message.FCMOptions(analyticsLabel: label)
        }
        message = applying(options.overrides, to: message)
        // A derived label is only analytics: it gives way rather than push the message over FCM's limit.
        if options.analyticsLabel == nil, message.fcmOptions != nil, message.payloadSize > message.payloadLimit {
            message.fcmOptions = nil
        }
        return message
    }

    /// The analytics label of one variant: the campaign's explicit label (with "-<key>" added when
    /// there are several variants), else "herald-<campaign id>-<key>" shortened to 50 characters
    /// (the id is cut, the key kept), else nil.
    /// `options.labels` (resolved from `.auto` when a run starts) may say one label for the whole
    /// campaign (the explicit one as it is, else "herald-<campaign id>") or none at all.
    public static func analyticsLabel(campaign: CampaignSpec, variantKey: String, campaignID: String?) -> String? {
        let mode = campaign.options.labels ?? .auto
        if mode == .unlabelled { return nil }
        if let label = campaign.options.analyticsLabel {
            return campaign.variants.count > 1 && mode.mayLabelVariants ? "\(label)-\(variantKey)" : label
        }
        guard let campaignID else { return nil }
        let id = String(String.UnicodeScalarView(campaignID.unicodeScalars.filter(TopicName.isAllowedInLabel)))
        if !mode.mayLabelVariants { return "herald-\(id.prefix(50 - "herald-".count))" }
        let room = 50 - "herald-".count - 1 - variantKey.count
        return "herald-\(id.prefix(max(0, room)))-\(variantKey)"
    }

    static func android(_ options: CampaignOptions, _ content: NotificationContent) -> AndroidConfig? {
        var config = AndroidConfig()
        config.collapseKey = options.collapseKey
        config.priority = options.priority.map { $0 == .high ? .high : .normal }
        config.ttl = options.expirySeconds.map { ProtoDuration(seconds: Int64($0)) }
        var notification = AndroidNotification()
        notification.icon = options.icon
        notification.color = options.color
        notification.sound = options.sound
        notification.clickAction = options.clickAction
        notification.channelID = options.androidChannelID
        notification.image = content.image
        notification.notificationCount = options.iosBadge
        if notification != AndroidNotification() { config.notification = notification }
        return config == AndroidConfig() ? nil : config
    }

    /// `ownPushType`: the overrides say what kind of push this is (a Live Activity's token, or an
    /// `apns-push-type` of their own), so nothing of a background push is added: FCM's documented
    /// Live Activity request goes out as written.
    static func apns(_ options: CampaignOptions, _ content: NotificationContent, sendTime: Date, ownPushType: Bool = false) -> APNSConfig? {
        var headers = StringMap()
        // Nothing to show (no title, text, image, badge, sound or category) and a priority asked
        // for: a background push, which Apple accepts only with priority 5, `content-available: 1`
        // and the background push type — "10" would be refused. Without a priority the message is
        // left as FCM's own data-message examples write it.
        let sound = options.appleSound
        let category = options.iosCategory ?? options.clickAction
        let background = options.priority != nil && content.title == nil && content.body == nil && content.image == nil
            && options.iosBadge == nil && sound == nil && category == nil && !ownPushType
        if background {
            headers["apns-priority"] = "5"
            headers["apns-push-type"] = "background"
        } else if let priority = options.priority {
            headers["apns-priority"] = priority == .high ? "10" : "5"
        }
        if let expiry = options.expirySeconds { headers["apns-expiration"] = expiration(expiry, sendTime: sendTime) }
        if let key = options.collapseKey { headers["apns-collapse-id"] = key }
        var config = APNSConfig()
        config.headers = headers.isEmpty ? nil : headers
        var aps = JSONObject()
        if let badge = options.iosBadge { aps["badge"] = .number(Double(badge)) }
        if let sound { aps["sound"] = .string(sound) }
        if let category { aps["category"] = .string(category) }
        if let image = content.image {
            aps["mutable-content"] = 1
            config.image = image
        }
        if background { aps["content-available"] = 1 }
        config.aps = aps
        return config == APNSConfig() ? nil : config
    }

    /// FCM's Live Activity request ("Send Live Activity updates"): the activity's token, the
    /// `liveactivity` push type APNs requires for it, priority 10 (5 for `priority: normal`, which
    /// Apple budgets less strictly), and the activity's `aps`. The title and text are the `aps`
    /// alert, not a `notification`, which would make FCM send an alert push instead of the update.
    static func liveActivityAPNs(_ activity: LiveActivity, _ options: CampaignOptions, _ content: NotificationContent,
                                 token: String, sendTime: Date) -> APNSConfig {
        var headers: StringMap = ["apns-push-type": "liveactivity", "apns-priority": options.priority == .normal ? "5" : "10"]
        if let expiry = options.expirySeconds { headers["apns-expiration"] = expiration(expiry, sendTime: sendTime) }
        if let key = options.collapseKey { headers["apns-collapse-id"] = key }
        var config = APNSConfig(headers: headers, liveActivityToken: token)
        config.aps = activity.aps(alert: content, sound: options.appleSound, sendTime: sendTime)
        return config
    }

    /// `apns-expiration` for an expiry of `seconds` from `sendTime`: an epoch, or "0" (deliver now or never).
    static func expiration(_ seconds: Int, sendTime: Date) -> String {
        seconds == 0 ? "0" : String(Int64(sendTime.timeIntervalSince1970.rounded(.down)) + Int64(seconds))
    }

    static func webpush(_ options: CampaignOptions, _ content: NotificationContent) -> WebpushConfig? {
        var headers = StringMap()
        if let expiry = options.expirySeconds { headers["TTL"] = String(expiry) }
        if let priority = options.priority { headers["Urgency"] = priority.rawValue }
        if let key = options.collapseKey { headers["Topic"] = key }
        var notification = JSONObject()
        if let image = content.image { notification["image"] = .string(image) }
        if let icon = options.webIcon { notification["icon"] = .string(icon) }
        var config = WebpushConfig()
        config.headers = headers.isEmpty ? nil : headers
        config.notification = notification.isEmpty ? nil : .object(notification)
        config.link = options.webLink
        return config == WebpushConfig() ? nil : config
    }

    /// Merges the overrides over the rendered blocks (JSON Merge Patch: `null` removes a rendered
    /// member). Overrides were validated when the campaign was parsed; should a merge still not
    /// decode, the rendered message is kept as is.
    static func applying(_ overrides: PlatformOverrides, to message: Message) -> Message {
        guard !overrides.isEmpty, var object = message.json().objectValue else { return message }
        let blocks: [(String, JSONObject?)] = [("android", overrides.android), ("apns", overrides.apns), ("webpush", overrides.webpush)]
        for (key, override) in blocks {
            guard let override else { continue }
            object[key] = (object[key] ?? .object([:])).mergePatched(with: .object(override))
        }
        return (try? Message.fromJSON(.object(object))) ?? message
    }
}

/// Renders `variant` of `campaign` for `target`; see `Renderer`.
public func render(campaign: CampaignSpec, variant: Variant, target: Target, campaignID: String?, sendTime: Date) -> Message {
    Renderer.render(campaign: campaign, variant: variant, target: target, campaignID: campaignID, sendTime: sendTime)
}

/// Renders the variant with key `variantKey`, or nil when the campaign has no such variant.
public func render(campaign: CampaignSpec, variantKey: String, target: Target, campaignID: String?, sendTime: Date) -> Message? {
    campaign.variant(variantKey).map {
        Renderer.render(campaign: campaign, variant: $0, target: target, campaignID: campaignID, sendTime: sendTime)
    }
}

extension TopicName {
    /// The characters analytics labels allow (the same as topic names).
    static func isAllowedInLabel(_ scalar: Unicode.Scalar) -> Bool {
        TopicName.isValid(String(scalar))
    }
}


