import FCMMessage
import HeraldJSON

/// A campaign's validated content: what is stored, rendered into v1 messages and planned into
/// requests. Its JSON form (`toJSON()`, `parse(_:)`) is the contract internal tools rely on; the
/// field list and limits are documented on `CampaignSpec.parse(_:ignoring:)`.
///
/// Build one with `parse` (which checks every rule); the memberwise initialiser does not validate.
public struct CampaignSpec: Sendable, Equatable {
    /// A name for people (1…200 characters).
    public var name: String
    /// The notification of the single implicit variant, or the defaults that variants inherit
    /// field by field.
    public var notification: NotificationContent?
    /// Who receives it: topics, or a condition over topics.
    public var audience: Audience
    /// Custom data sent with every variant (a variant's own data wins per key).
    public var data: StringMap
    /// The console's "additional options".
    public var options: CampaignOptions
    /// The A/B variants as written; empty means one implicit variant "A" of weight 100.
    public var variants: [VariantSpec]
    /// The share of the audience (0 ..< 100 percent) that gets nothing, as a control group.
    public var holdoutPercent: Int
    /// When it is sent; nil leaves it unscheduled (a draft, or scheduled by a separate action).
    public var schedule: Schedule?
    /// Spread, sending hours and latest-delivery time (`delivery`).
    public var delivery = DeliveryControls()
    /// The A/B test's winner picked and sent by the scheduler (`auto_winner`).
    public var autoWinner: WinnerRule?
    /// Sent as an update (or end) of each device's Live Activity, not as a notification
    /// (`live_activity`; devices with an activity token only).
    public var liveActivity: LiveActivity?

    public init(
        name: String, notification: NotificationContent? = nil, audience: Audience, data: StringMap = [:],
        options: CampaignOptions = CampaignOptions(), variants: [VariantSpec] = [], holdoutPercent: Int = 0,
        schedule: Schedule? = nil
    ) {
        self.name = name
        self.notification = notification
        self.audience = audience
        self.data = data
        self.options = options
        self.variants = variants
        self.holdoutPercent = holdoutPercent
        self.schedule = schedule
    }

    /// The variants as sent: each variant's notification completed from the campaign's, and its
    /// data merged over the campaign's. Without explicit variants, the single variant "A" (weight 100).
    public var effectiveVariants: [Variant] {
        if variants.isEmpty {
            return [Variant(key: "A", weight: 100, notification: notification ?? NotificationContent(), data: data, liveActivity: liveActivity)]
        }
        return variants.map { spec in
            Variant(
                key: spec.key, weight: spec.weight,
                notification: (notification ?? NotificationContent()).overlaid(by: spec.notification),
                data: data.merging(spec.data), liveActivity: liveActivity)
        }
    }

    /// The effective variant with this key.
    public func variant(_ key: String) -> Variant? {
        effectiveVariants.first { $0.key == key }
    }

    /// Whether sending needs audience buckets: several variants or a holdout group.
    public var usesBuckets: Bool { variants.count > 1 || holdoutPercent > 0 }
}

/// The recipients of a campaign.
public enum Audience: Sendable, Equatable {
    /// Devices subscribed to any of these topics (names without the `/topics/` prefix).
    case topics([String])
    /// Devices matching an FCM condition such as `'news' in topics && !'muted' in topics`.
    case condition(String)
    /// The active devices of a saved segment (by its id), each sent its own request.
    case segment(SegmentID)
    /// These registration tokens, each sent its own request.
    case tokens([String])

    /// Sent one request per device (planned by `DevicePlanner`), not as one fan-out to topics.
    public var isPerDevice: Bool {
        switch self {
        case .segment, .tokens: true
        case .topics, .condition: false
        }
    }

    /// A target of the audience's kind, for measuring a message against its payload limit.
    public var sampleTarget: Target {
        isPerDevice ? .token(String(repeating: "x", count: 163)) : .topic("t")
    }
}

/// Notification text and image. Every field is optional so that a variant can inherit the others.
public struct NotificationContent: Sendable, Equatable {
    public var title: String?
    public var body: String?
    /// An https image URL (Apple needs a file extension in it).
    public var image: String?
    /// The title and text in other languages, by BCP 47 tag ("fa", "he-IL"): a device whose
    /// language matches gets them, the others the text above (campaigns to devices only).
    public var translations: [String: NotificationContent]

    public init(title: String? = nil, body: String? = nil, image: String? = nil, translations: [String: NotificationContent] = [:]) {
        self.title = title
        self.body = body
        self.image = image
        self.translations = translations
    }

    /// This content with `other`'s set fields in place of its own (translations language by language).
    public func overlaid(by other: NotificationContent?) -> NotificationContent {
        guard let other else { return self }
        var merged = translations
        for (language, text) in other.translations { merged[language] = (merged[language] ?? NotificationContent()).overlaid(by: text) }
        return NotificationContent(title: other.title ?? title, body: other.body ?? body, image: other.image ?? image, translations: merged)
    }

    /// The translation a device of `language` gets: its exact tag, else its language without the
    /// region ("fa" for "fa-IR"); nil when none matches.
    public func translation(for language: String?) -> (tag: String, text: NotificationContent)? {
        guard let language, !translations.isEmpty else { return nil }
        if let exact = translations[language] { return (language, exact) }
        let primary = LanguageTag.primary(language)
        return translations[primary].map { (primary, $0) }
    }

    /// Whether there is any text to show.
    public var hasText: Bool { title != nil || body != nil }

    /// Title and body, counted as a person counts characters (grapheme clusters).
    public var characterCount: Int { (title?.count ?? 0) + (body?.count ?? 0) }
}

/// A variant as written in the campaign: its own notification fields and data, which complete the
/// campaign's.
public struct VariantSpec: Sendable, Equatable {
    /// A short unique key ("A", "B", "control"): `^[A-Za-z0-9_-]{1,16}$`.
    public var key: String
    /// A positive integer; the variant's share of the non-holdout audience is weight / total weight.
    public var weight: Int
    public var notification: NotificationContent?
    public var data: StringMap

    public init(key: String, weight: Int, notification: NotificationContent? = nil, data: StringMap = [:]) {
        self.key = key
        self.weight = weight
        self.notification = notification
        self.data = data
    }
}

/// A variant as sent: complete notification and merged data, and the campaign's Live Activity,
/// whose content state is personalised with the text.
public struct Variant: Sendable, Equatable {
    public var key: String
    public var weight: Int
    public var notification: NotificationContent
    public var data: StringMap
    public var liveActivity: LiveActivity?

    public init(key: String, weight: Int, notification: NotificationContent, data: StringMap = [:], liveActivity: LiveActivity? = nil) {
        self.key = key
        self.weight = weight
        self.notification = notification
        self.data = data
        self.liveActivity = liveActivity
    }
}

/// The console's "additional options". Each becomes every platform's own field when rendered
/// (see `Renderer`).
public struct CampaignOptions: Sendable, Equatable {
    /// "high" or "normal".
    public enum Priority: String, Sendable, CaseIterable {
        case high, normal
    }

    public var androidChannelID: String?
    public var priority: Priority?
    public var sound: String?
    /// An Android drawable resource name.
    public var icon: String?
    /// An https URL of the web notification's icon.
    public var webIcon: String?
    /// `#rrggbb`, Android's notification colour.
    public var color: String?
    public var clickAction: String?
    public var iosBadge: Int?
    public var iosSound: String?
    public var iosCategory: String?
    /// An https page opened when a web notification is clicked.
    public var webLink: String?
    /// How long an undelivered message is kept (0 … 2,419,200 seconds).
    public var expirySeconds: Int?
    /// The analytics label; nil derives "herald-<campaign id>-<variant key>" when rendering.
    public var analyticsLabel: String?
    /// How the messages are labelled for FCM's delivery reports (nil: `.auto`).
    public var labels: LabelMode?
    /// Newer messages with the same key replace older undelivered ones on every platform.
    public var collapseKey: String?
    /// Raw per-platform blocks merged over the rendered ones.
    public var overrides: PlatformOverrides

    /// The sound Apple devices play: `ios_sound`, else `sound`.
    public var appleSound: String? { iosSound ?? sound }

    public init(
        androidChannelID: String? = nil, priority: Priority? = nil, sound: String? = nil, icon: String? = nil,
        webIcon: String? = nil, color: String? = nil, clickAction: String? = nil, iosBadge: Int? = nil,
        iosSound: String? = nil, iosCategory: String? = nil, webLink: String? = nil, expirySeconds: Int? = nil,
        analyticsLabel: String? = nil, collapseKey: String? = nil, overrides: PlatformOverrides = PlatformOverrides()
    ) {
        self.androidChannelID = androidChannelID
        self.priority = priority
        self.sound = sound
        self.icon = icon
        self.webIcon = webIcon
        self.color = color
        self.clickAction = clickAction
        self.iosBadge = iosBadge
        self.iosSound = iosSound
        self.iosCategory = iosCategory
        self.webLink = webLink
        self.expirySeconds = expirySeconds
        self.analyticsLabel = analyticsLabel
        self.collapseKey = collapseKey
        self.overrides = overrides
    }
}

/// Raw v1 `android`, `apns` and `webpush` blocks, deep-merged over what Herald renders (objects
/// merge member by member; any other value replaces; `null` removes a rendered member). Each block
/// must be one FCM accepts (REST field names, types, formats), checked when the campaign is parsed.
public struct PlatformOverrides: Sendable, Equatable {
    public var android: JSONObject?
    public var apns: JSONObject?
    public var webpush: JSONObject?

    public init(android: JSONObject? = nil, apns: JSONObject? = nil, webpush: JSONObject? = nil) {
        self.android = android
        self.apns = apns
        self.webpush = webpush
    }

    public var isEmpty: Bool { android == nil && apns == nil && webpush == nil }

    /// Whether the Apple block says what kind of push it is: a Live Activity's token, or an
    /// `apns-push-type` header of its own.
    public var namesItsOwnAPNsPushType: Bool {
        guard let apns else { return false }
        let headers = apns["headers"]?.objectValue ?? [:]
        return apns["live_activity_token"] != nil || headers.contains { $0.key.lowercased() == "apns-push-type" }
    }
}
