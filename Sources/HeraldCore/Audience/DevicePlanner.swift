import FCMMessage
import Foundation

/// Plans a run to devices: one v1 request per device, each device in one stable bucket of the
/// campaign (so no device ever gets two variants of it, run after run), its text personalised
/// from its properties, and each message measured against FCM's 4096-byte limit for one device.
/// Pure; the store streams the devices through it and writes what it returns.
public struct DevicePlanner: Sendable {
    /// Buckets of devices: 1000 gives A/B weights and holdouts to a tenth of a percent.
    public static let buckets = 1000

    let campaign: CampaignSpec
    let campaignID: String
    let sendTime: Date
    /// Which variant each bucket gets (nil: the holdout, which gets nothing).
    let variantOfBucket: [Variant?]
    /// The message of each unpersonalised variant (and language) around its token, rendered once
    /// for every device; keyed by `preparedKey`.
    let prepared: [String: (before: String, after: String)]
    /// Each personalised variant (and language) rendered once with stand-ins for its token and
    /// its texts with variables, which each device's values replace; keyed by `preparedKey`.
    let personalized: [String: PersonalizedMessage]
    /// The project's control group, which a marketing campaign skips (frozen by the run).
    public var controlGroup: ControlGroup?

    /// The test (or, without variants, the whole send): each variant to its weight's share of the
    /// buckets, the holdout to none.
    public init(campaign: CampaignSpec, campaignID: String, sendTime: Date) {
        let variants = campaign.effectiveVariants
        let (ranges, _) = FanOutPlanner.allocate(variants.map(\.weight), buckets: Self.buckets, holdoutPercent: campaign.holdoutPercent)
        var table = [Variant?](repeating: nil, count: Self.buckets)
        for (variant, range) in zip(variants, ranges) { for bucket in range { table[bucket] = variant } }
        self.init(campaign: campaign, campaignID: campaignID, sendTime: sendTime, table: table)
    }

    /// The winner sent to the rest: `variantKey` to the holdout's buckets only, which got nothing
    /// in the test. Nil when the campaign has no such variant.
    public init?(rollout variantKey: String, of campaign: CampaignSpec, campaignID: String, sendTime: Date) {
        guard let winner = campaign.variant(variantKey) else { return nil }
        let test = DevicePlanner(campaign: campaign, campaignID: campaignID, sendTime: sendTime)
        self.init(campaign: campaign, campaignID: campaignID, sendTime: sendTime,
                  table: test.variantOfBucket.map { $0 == nil ? winner : nil })
    }

    /// One variant to every device (a one-call send that names it). Nil when the campaign has no such variant.
    public init?(only variantKey: String, of campaign: CampaignSpec, campaignID: String, sendTime: Date) {
        guard let variant = campaign.variant(variantKey) else { return nil }
        self.init(campaign: campaign, campaignID: campaignID, sendTime: sendTime, table: [Variant?](repeating: variant, count: Self.buckets))
    }

    init(campaign: CampaignSpec, campaignID: String, sendTime: Date, table: [Variant?]) {
        self.campaign = campaign
        self.campaignID = campaignID
        self.sendTime = sendTime
        variantOfBucket = table
        var prepared: [String: (String, String)] = [:]
        var personalized: [String: PersonalizedMessage] = [:]
        for variant in campaign.effectiveVariants {
            for language in [nil] + variant.notification.translations.keys.map(Optional.some) {
                let localized = variant.localized(language)
                // Once per kind of device: a token's message names it by `token`, an FID's by `fid`.
                for kind in DeviceKind.allCases {
                    let key = Self.preparedKey(variant.key, language, kind)
                    // A Live Activity's message names the device twice (its token and its activity's).
                    guard !localized.isPersonalized, campaign.liveActivity == nil else {
                        personalized[key] = PersonalizedMessage(campaign, localized, kind: kind, campaignID: campaignID, sendTime: sendTime)
                        continue
                    }
                    let body = Self.render(campaign, localized, target: Self.placeholderTarget(kind), campaignID: campaignID, sendTime: sendTime)
                    let parts = body.components(separatedBy: Self.placeholder)
                    if parts.count == 2 { prepared[key] = (parts[0], parts[1]) }
                }
            }
        }
        self.prepared = prepared
        self.personalized = personalized
    }

    /// The share of a device audience each variant gets and the holdout's, as a plan splits it
    /// (the composer shows the arms' reach with it).
    public static func shares(weights: [Int], holdoutPercent: Int) -> (variants: [Double], holdout: Double) {
        let (ranges, holdout) = FanOutPlanner.allocate(weights, buckets: buckets, holdoutPercent: holdoutPercent)
        return (ranges.map { Double($0.count) / Double(buckets) }, Double(holdout.count) / Double(buckets))
    }

    /// Whether any device gets something (a rollout without a holdout reaches nobody).
    public var reachesAnyone: Bool { variantOfBucket.contains { $0 != nil } }

    /// The bucket of a device in a campaign: FNV-1a of the campaign and the token (a moved
    /// device's `bucketKey`, its token before the move), so each campaign splits its audience
    /// anew but always the same way.
    public static func bucket(of token: String, campaignID: String) -> Int {
        Int(stableHash(campaignID, token) % UInt64(buckets))
    }

    /// FNV-1a of `scope`, ":" and `key`: the same on every machine and release (Swift's own hash
    /// is seeded per process).
    static func stableHash(_ scope: String, _ key: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in scope.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        hash = (hash ^ 0x3a) &* 0x0000_0100_0000_01b3
        for byte in key.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return hash
    }

    /// The variant `device` gets, or nil when it gets nothing: in the holdout, in the control
    /// group (a marketing campaign), with the campaign's category switched off, or without a
    /// Live Activity for a Live Activity campaign to update (such a device is not of its audience).
    public func variant(for device: Device) -> Variant? {
        guard exclusion(of: device) == nil, reaches(device) else { return nil }
        return variantOfBucket[Self.bucket(of: device.bucketKey ?? device.token, campaignID: campaignID)]
    }

    /// Why a device gets nothing although its bucket may: the campaign's category is one it
    /// switched off, or it is in the control group and the campaign is marketing.
    public func exclusion(of device: Device) -> Skip? {
        if let category = campaign.delivery.category, device.quietCategories.contains(category) { return .quietCategory }
        if !campaign.delivery.transactional, controlGroup?.contains(device.bucketKey ?? device.token) ?? false { return .controlGroup }
        return nil
    }

    /// Whether the campaign can reach `device` at all: a Live Activity campaign only an iOS device
    /// that registered its activity's token.
    public func reaches(_ device: Device) -> Bool {
        campaign.liveActivity == nil || (device.platform == .ios && device.liveActivityToken != nil)
    }

    /// Why a device gets nothing from a plan.
    public enum Skip: String, Sendable {
        case holdout
        case controlGroup = "control_group"
        case quietCategory = "quiet_category"
    }

    /// Why `device` gets nothing, or nil when it gets a variant.
    public func skip(of device: Device) -> Skip? {
        exclusion(of: device) ?? (variant(for: device) == nil ? .holdout : nil)
    }

    /// The request for `device`, or nil when its bucket gets nothing.
    public func request(for device: Device) -> DeviceRequest? {
        guard let variant = variant(for: device) else { return nil }
        // The device's language picks the text, else the campaign's own.
        let language = variant.notification.translation(for: device.language)?.tag
        let key = Self.preparedKey(variant.key, language, device.kind)
        if let (before, after) = prepared[key] {
            return DeviceRequest(variantKey: variant.key, token: device.token, body: before + device.token + after, failure: nil)
        }
        if let body = personalized[key]?.body(for: device) {
            return DeviceRequest(variantKey: variant.key, token: device.token, body: body, failure: nil)
        }
        // The full render: a message near FCM's limit (where the derived analytics label may give
        // way), an empty personalised text, or a variant that could not be prepared.
        let personal = variant.localized(language).personalized(for: device)
        let message = Renderer.render(campaign: campaign, variant: personal, target: device.target, campaignID: campaignID, sendTime: sendTime,
                                      liveActivityToken: device.liveActivityToken)
        let size = message.payloadSize
        guard size <= Message.tokenPayloadLimit else {
            return DeviceRequest(variantKey: variant.key, token: device.token, body: nil,
                                 failure: "personalised for this device the message is \(size) bytes, over FCM's \(Message.tokenPayloadLimit) for one device")
        }
        return DeviceRequest(variantKey: variant.key, token: device.token, body: message.json().serializedString(), failure: nil)
    }

    static func preparedKey(_ variant: String, _ language: String?, _ kind: DeviceKind) -> String {
        variant + "\u{0}" + (language ?? "") + "\u{0}" + kind.rawValue
    }

    /// A token-shaped stand-in that cannot occur in a rendered message by chance.
    static let placeholder = "HERALD-DEVICE-TOKEN-0f1e2d3c4b5a69788796a5b4c3d2e1f0"

    /// The stand-in as the target of a device of `kind`.
    static func placeholderTarget(_ kind: DeviceKind) -> Message.Target {
        Device(token: placeholder, kind: kind, platform: .android).target
    }

    static func render(_ campaign: CampaignSpec, _ variant: Variant, token: String, campaignID: String, sendTime: Date) -> String {
        render(campaign, variant, target: .token(token), campaignID: campaignID, sendTime: sendTime)
    }

    static func render(_ campaign: CampaignSpec, _ variant: Variant, target: Message.Target, campaignID: String, sendTime: Date) -> String {
        Renderer.render(campaign: campaign, variant: variant, target: target, campaignID: campaignID, sendTime: sendTime)
            .json().serializedString()
    }
}

/// One device's request in a plan: its body, or why it cannot be sent.
public struct DeviceRequest: Sendable, Equatable {
    public var variantKey: String
    public var token: String
    /// The v1 `message` JSON; nil when `failure` says why the device cannot be sent to.
    public var body: String?
    public var failure: String?
}

extension Variant {
    /// This variant in the translation `language` (a key of its translations), its own text when nil.
    public func localized(_ language: String?) -> Variant {
        var copy = self
        if let language, let text = notification.translations[language] {
            copy.notification.title = text.title ?? notification.title
            copy.notification.body = text.body ?? notification.body
        }
        copy.notification.translations = [:]
        return copy
    }

    /// Whether the title or text (or a Live Activity's content state) holds variables.
    public var isPersonalized: Bool {
        [notification.title, notification.body].contains { $0.map(Self.hasVariables) ?? false } || liveActivity?.hasVariables == true
    }

    /// This variant for one device: its variables filled in from the device.
    public func personalized(for device: Device) -> Variant {
        mapTexts { MessageTemplate.parse($0).map { $0.render(for: device) } }
    }

    /// This variant with every variable at its default, as the composer previews and measures it.
    public var withDefaults: Variant {
        mapTexts { MessageTemplate.parse($0).map(\.withDefaults) }
    }

    func mapTexts(_ transform: (String) -> Result<String, TemplateProblem>) -> Variant {
        guard isPersonalized else { return self }
        var copy = self
        func apply(_ text: String?) -> String? {
            guard let text, Self.hasVariables(text), case .success(let result) = transform(text) else { return text }
            return result
        }
        copy.notification.title = apply(notification.title)
        copy.notification.body = apply(notification.body)
        copy.liveActivity = liveActivity?.mappingStrings { apply($0) ?? $0 }
        return copy
    }

    static func hasVariables(_ text: String) -> Bool { text.contains("{{") }
}
