import HeraldJSON

/// The Apple block of a message (`ApnsConfig`). The payload is APNs' own JSON (with `aps` and any
/// custom keys), so it is kept as JSON; `aps` helpers read and write its common members.
public struct APNSConfig: Sendable, Equatable {
    /// APNs request headers, all values strings (`apns-priority` "10"/"5", `apns-expiration`
    /// epoch seconds, `apns-collapse-id`, `apns-push-type`, …).
    public var headers: StringMap?
    /// The APNs payload: `{"aps": {"alert", "badge", "sound", "category", "mutable-content": 1, …}, …}`.
    public var payload: JSON?
    /// `fcm_options.analytics_label`.
    public var analyticsLabel: String?
    /// `fcm_options.image`: an https image URL with a file extension Apple recognises.
    public var image: String?
    /// `live_activity_token`, for Live Activity updates.
    public var liveActivityToken: String?

    /// Apple's `apns-push-type` values ("Sending notification requests to APNs"); APNs refuses any other.
    public static let pushTypes = ["alert", "background", "location", "voip", "complication", "fileprovider", "mdm", "liveactivity",
                                   "pushtotalk", "widgets"]
    /// Apple's `apns-priority` values.
    public static let priorities = ["10", "5", "1"]

    public init(
        headers: StringMap? = nil, payload: JSON? = nil, analyticsLabel: String? = nil, image: String? = nil,
        liveActivityToken: String? = nil
    ) {
        self.headers = headers
        self.payload = payload
        self.analyticsLabel = analyticsLabel
        self.image = image
        self.liveActivityToken = liveActivityToken
    }

    /// The payload's `aps` dictionary (empty when unset). Setting an empty one removes it, and
    /// the payload too when nothing else is left in it.
    public var aps: JSONObject {
        get { payload?["aps"]?.objectValue ?? [:] }
        set {
            var object = payload?.objectValue ?? [:]
            object["aps"] = newValue.isEmpty ? nil : .object(newValue)
            payload = object.isEmpty ? nil : .object(object)
        }
    }
}

/// The web block of a message (`WebpushConfig`).
public struct WebpushConfig: Sendable, Equatable {
    /// Web Push headers (`TTL` seconds, `Urgency` very-low|low|normal|high, `Topic`).
    public var headers: StringMap?
    /// Web-only data; replaces the common `data` on the web.
    public var data: StringMap?
    /// A Web Notification API options object (`title`, `body`, `icon`, `image`, `badge`, `dir`,
    /// `lang`, `tag`, `requireInteraction`, `actions`, …), kept as JSON.
    public var notification: JSON?
    /// `fcm_options.link`: the https page opened on click.
    public var link: String?
    /// `fcm_options.analytics_label`.
    public var analyticsLabel: String?

    public init(
        headers: StringMap? = nil, data: StringMap? = nil, notification: JSON? = nil, link: String? = nil,
        analyticsLabel: String? = nil
    ) {
        self.headers = headers
        self.data = data
        self.notification = notification
        self.link = link
        self.analyticsLabel = analyticsLabel
    }
}
