import HeraldJSON

/// The Android block of a message (`AndroidConfig`).
public struct AndroidConfig: Sendable, Equatable {
    /// Delivery priority (`priority`): "NORMAL" or "HIGH".
    public enum Priority: String, Sendable, CaseIterable {
        case normal = "NORMAL"
        case high = "HIGH"
    }

    /// Messages with the same key replace each other while the device is offline (`collapse_key`).
    public var collapseKey: String?
    public var priority: Priority?
    /// How long FCM keeps the message for an offline device (`ttl`, "86400s"; 0 to 4 weeks).
    public var ttl: ProtoDuration?
    /// Only the app with this package name receives it (`restricted_package_name`).
    public var restrictedPackageName: String?
    /// Android-only data; replaces the common `data` on Android (`data`).
    public var data: StringMap?
    public var notification: AndroidNotification?
    /// `fcm_options.analytics_label` for Android.
    public var analyticsLabel: String?
    /// Deliver before the device is unlocked (`direct_boot_ok`).
    public var directBootOk: Bool?
    /// May be delivered on a bandwidth-constrained network (`bandwidth_constrained_ok`).
    public var bandwidthConstrainedOk: Bool?
    /// May be delivered over a restricted satellite network (`restricted_satellite_ok`).
    public var restrictedSatelliteOk: Bool?

    public init(
        collapseKey: String? = nil, priority: Priority? = nil, ttl: ProtoDuration? = nil,
        restrictedPackageName: String? = nil, data: StringMap? = nil, notification: AndroidNotification? = nil,
        analyticsLabel: String? = nil, directBootOk: Bool? = nil, bandwidthConstrainedOk: Bool? = nil, restrictedSatelliteOk: Bool? = nil
    ) {
        self.collapseKey = collapseKey
        self.priority = priority
        self.ttl = ttl
        self.restrictedPackageName = restrictedPackageName
        self.data = data
        self.notification = notification
        self.analyticsLabel = analyticsLabel
        self.directBootOk = directBootOk
        self.bandwidthConstrainedOk = bandwidthConstrainedOk
        self.restrictedSatelliteOk = restrictedSatelliteOk
    }
}

/// The Android notification (`AndroidNotification`). Free-form members that FCM defines as
/// enumerations keep their REST spelling as strings (`notification_priority` "PRIORITY_HIGH",
/// `visibility` "PUBLIC"); decoding checks them.
public struct AndroidNotification: Sendable, Equatable {
    public var title: String?
    public var body: String?
    /// A drawable resource name in the app (`icon`), not a URL.
    public var icon: String?
    /// `#rrggbb`.
    public var color: String?
    /// "default" or a sound resource name (`sound`).
    public var sound: String?
    /// Notifications with the same tag replace each other in the drawer (`tag`).
    public var tag: String?
    /// The activity intent filter opened on tap (`click_action`).
    public var clickAction: String?
    public var bodyLocKey: String?
    public var bodyLocArgs: [String]?
    public var titleLocKey: String?
    public var titleLocArgs: [String]?
    /// The notification channel (Android O and later) (`channel_id`).
    public var channelID: String?
    public var ticker: String?
    public var sticky: Bool?
    /// An RFC 3339 timestamp (`event_time`).
    public var eventTime: String?
    public var localOnly: Bool?
    /// PRIORITY_MIN … PRIORITY_MAX (`notification_priority`).
    public var notificationPriority: String?
    public var defaultSound: Bool?
    public var defaultVibrateTimings: Bool?
    public var defaultLightSettings: Bool?
    /// Duration strings ("0.5s") (`vibrate_timings`).
    public var vibrateTimings: [String]?
    /// PRIVATE, PUBLIC or SECRET (`visibility`).
    public var visibility: String?
    /// The badge count shown by launchers that support it (`notification_count`).
    public var notificationCount: Int?
    /// `light_settings`, kept as JSON.
    public var lightSettings: JSON?
    /// An https image URL (`image`).
    public var image: String?
    public var bypassProxyNotification: Bool?
    /// ALLOW, DENY or IF_PRIORITY_LOWERED (`proxy`).
    public var proxy: String?

    public init(
        title: String? = nil, body: String? = nil, icon: String? = nil, color: String? = nil,
        sound: String? = nil, tag: String? = nil, clickAction: String? = nil, channelID: String? = nil,
        image: String? = nil, notificationCount: Int? = nil
    ) {
        self.title = title
        self.body = body
        self.icon = icon
        self.color = color
        self.sound = sound
        self.tag = tag
        self.clickAction = clickAction
        self.channelID = channelID
        self.image = image
        self.notificationCount = notificationCount
    }
}

/// A protobuf `Duration` in its JSON form: seconds with up to nine fractional digits and an "s"
/// ("86400s", "3.5s"), as FCM's `ttl` expects.
public struct ProtoDuration: Sendable, Hashable, CustomStringConvertible {
    public var seconds: Int64
    /// 0 ..< 1_000_000_000.
    public var nanos: Int32

    public init(seconds: Int64, nanos: Int32 = 0) {
        self.seconds = seconds
        self.nanos = nanos
    }

    /// "86400s", or "3.5s" with trailing zeros of the fraction dropped.
    public var description: String {
        guard nanos != 0 else { return "\(seconds)s" }
        var fraction = String(nanos)
        fraction = String(repeating: "0", count: 9 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return "\(seconds).\(fraction)s"
    }

    /// Parses "86400s" or "3.5s" (non-negative; at most nine fractional digits).
    public init?(_ text: String) {
        guard text.hasSuffix("s") else { return nil }
        let number = text.dropLast()
        let parts = number.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, let whole = parts.first, !whole.isEmpty, whole.count <= 12,
            whole.allSatisfy({ $0.isASCII && $0.isNumber }), let seconds = Int64(whole)
        else { return nil }
        var nanos: Int32 = 0
        if parts.count == 2 {
            let fraction = parts[1]
            guard !fraction.isEmpty, fraction.count <= 9, fraction.allSatisfy({ $0.isASCII && $0.isNumber }),
                let value = Int32(fraction + String(repeating: "0", count: 9 - fraction.count))
            else { return nil }
            nanos = value
        }
        self.init(seconds: seconds, nanos: nanos)
    }
}
