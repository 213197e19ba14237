import FCMMessage
import Foundation
import HeraldJSON

/// `live_activity`: a campaign that updates or ends each device's Live Activity (see `LiveActivity`).
extension CampaignParser {
    static let liveActivityFields: Set<String> = ["event", "content_state", "dismissal_date"]

    /// What a notification shows that a Live Activity does not (its alert is a title, a text and
    /// a sound), and what only Android and the web read: with nothing to do, each is refused
    /// rather than dropped unseen.
    static let notForLiveActivities: Set<String> = [
        "android_channel_id", "icon", "web_icon", "color", "click_action", "ios_badge", "ios_category", "web_link",
    ]

    /// `{"event": "update" | "end", "content_state": {…}, "dismissal_date"?: RFC 3339 (end only)}`.
    mutating func parseLiveActivity(_ object: JSONObject) -> LiveActivity? {
        let path = "live_activity"
        guard let block = reader.object(object, path, at: "") else { return nil }
        reader.rejectUnknown(block, known: Self.liveActivityFields, at: path)
        var event = LiveActivity.Event.update
        if let text = reader.string(block, "event", at: path, required: true) {
            if let known = LiveActivity.Event(rawValue: text) {
                event = known
            } else {
                reader.report("live_activity.event", "invalid_value",
                    "the event is \"update\" or \"end\" (a start needs a push-to-start token, which devices do not register), found \"\(text)\"")
            }
        }
        let state = reader.object(block, "content_state", at: path, required: true) ?? [:]
        var dismissal: Date?
        if let stamp = reader.string(block, "dismissal_date", at: path) {
            if RFC3339.isStorable(stamp), let seconds = RFC3339.secondsSince1970(stamp) {
                // APNs reads whole seconds.
                dismissal = Date(timeIntervalSince1970: seconds.rounded(.down))
            } else {
                reader.report("live_activity.dismissal_date", "invalid_value", "a time is RFC 3339, such as 2026-11-27T18:00:00Z, found \"\(stamp)\"")
            }
            if event != .end {
                reader.report("live_activity.dismissal_date", "end_only",
                    "a dismissal date says when an ended activity leaves the Lock Screen: give it with the event \"end\", not \"\(event.rawValue)\"")
            }
        }
        return LiveActivity(event: event, contentState: state, dismissalDate: dismissal)
    }

    /// What a Live Activity campaign may not have: an audience of topics (FCM takes one activity
    /// token a request), data (no app code runs for an activity's update), an image, the options
    /// of notifications and other platforms, and an override naming another push type; a sound
    /// needs an alert to play with.
    mutating func checkLiveActivity(_ spec: CampaignSpec, audienceGiven: Bool) {
        guard spec.liveActivity != nil else { return }
        if audienceGiven, !spec.audience.isPerDevice {
            // The one thing to change: the rest is a notification's, fine once live_activity goes.
            reader.report("live_activity", "needs_devices",
                "a Live Activity is reached by its own token, one request per device: target a segment or tokens, not topics or a condition")
            return
        }
        func refuse(_ path: String, _ why: String) {
            reader.report(path, "not_with_live_activity", why)
        }
        let dataWhy = "a Live Activity's update carries its content in live_activity.content_state; no app code runs to read data"
        if !spec.data.isEmpty { refuse("data", dataWhy) }
        if spec.notification?.image != nil { refuse("notification.image", "a Live Activity's alert shows no image") }
        for (index, variant) in spec.variants.enumerated() {
            let prefix = JSONReader.path("variants", index: index)
            if !variant.data.isEmpty { refuse(JSONReader.path(prefix, "data"), dataWhy) }
            if variant.notification?.image != nil { refuse(JSONReader.path(prefix, "notification.image"), "a Live Activity's alert shows no image") }
        }
        for key in spec.options.toJSON().objectValue?.keys ?? [] where Self.notForLiveActivities.contains(key) {
            refuse(JSONReader.path("options", key), "a Live Activity shows its content state and an alert of a title and text on iOS: \(key) has no effect there")
        }
        let pushType = spec.options.overrides.apns?["headers"]?.objectValue?.first { $0.key.lowercased() == "apns-push-type" }
        if let pushType, pushType.value.stringValue != "liveactivity" {
            refuse(JSONReader.path("options.overrides.apns.headers", pushType.key),
                "a Live Activity is pushed as liveactivity, found \(pushType.value.serializedString())")
        }
        if let sound = spec.options.iosSound != nil ? "ios_sound" : spec.options.sound != nil ? "sound" : nil,
           let silent = spec.effectiveVariants.first(where: { !$0.notification.hasText }) {
            refuse(JSONReader.path("options", sound),
                "a Live Activity plays a sound only with its alert, and variant \(silent.key) has no title or text")
        }
    }
}
