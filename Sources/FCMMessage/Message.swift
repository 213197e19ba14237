import HeraldJSON

/// One FCM HTTP v1 message (`projects.messages` resource): exactly one target, the fields common
/// to every platform, and a block per platform. Encodes to exactly the REST field names and value
/// formats (`json()`), in a stable, readable order: target, notification, data, android, apns,
/// webpush, fcm_options. Fields left nil are omitted.
public struct Message: Sendable, Equatable {
    /// Who receives the message: a registration token, a topic, or a condition over topics.
    public enum Target: Sendable, Hashable {
        case topic(String)
        case condition(String)
        case token(String)
        /// A Firebase installation ID (`fid`), the v1 API's newer way to name one app instance.
        case fid(String)

        /// The JSON member name of this target ("topic", "condition", "token", "fid").
        public var fieldName: String {
            switch self {
            case .topic: "topic"
            case .condition: "condition"
            case .token: "token"
            case .fid: "fid"
            }
        }

        /// The topic name, condition expression, token or installation ID.
        public var value: String {
            switch self {
            case .topic(let value), .condition(let value), .token(let value), .fid(let value): value
            }
        }
    }

    public var target: Target
    /// The basic notification shown on every platform.
    public var notification: Notification?
    /// Custom key/value pairs delivered to the app (keys must not be reserved; see validation).
    public var data: StringMap?
    public var android: AndroidConfig?
    public var apns: APNSConfig?
    public var webpush: WebpushConfig?
    public var fcmOptions: FCMOptions?

    public init(
        target: Target, notification: Notification? = nil, data: StringMap? = nil,
        android: AndroidConfig? = nil, apns: APNSConfig? = nil, webpush: WebpushConfig? = nil,
        fcmOptions: FCMOptions? = nil
    ) {
        self.target = target
        self.notification = notification
        self.data = data
        self.android = android
        self.apns = apns
        self.webpush = webpush
        self.fcmOptions = fcmOptions
    }

    /// The common notification (`Notification`): title, body, image URL.
    public struct Notification: Sendable, Equatable {
        public var title: String?
        public var body: String?
        /// An https URL of the image (`image`).
        public var image: String?

        public init(title: String? = nil, body: String? = nil, image: String? = nil) {
            self.title = title
            self.body = body
            self.image = image
        }
    }

    /// Platform-independent options (`FcmOptions`).
    public struct FCMOptions: Sendable, Equatable {
        /// The label under which delivery data is reported (`analytics_label`, `^[a-zA-Z0-9-_.~%]{1,50}$`).
        public var analyticsLabel: String?

        public init(analyticsLabel: String? = nil) {
            self.analyticsLabel = analyticsLabel
        }
    }
}
