import Foundation
import HeraldJSON

/// How a campaign's requests may go out, beyond when its runs start (the contract's `delivery`
/// object): at most so many a minute, only within local sending hours, and not at all once a
/// run is older than its latest-delivery time.
public struct DeliveryControls: Sendable, Equatable {
    /// At most this many requests a minute for this campaign ("spread"); nil: as fast as the
    /// project's quota lets.
    public var maxPerMinute: Int?
    /// Or: a run's requests spread evenly over this many minutes, however many there are.
    public var spreadMinutes: Int?
    /// Requests not sent this many minutes after their run was due are dropped as expired, and
    /// no message lives on FCM longer than that.
    public var latestDeliveryMinutes: Int?
    /// The local hours the campaign may send in.
    public var window: SendingWindow?
    /// The schedule's time read in each recipient's own time zone (device audiences); the
    /// latest-delivery time then counts from each device's wave.
    public var recipientTime: RecipientTime?
    /// What kind of message it is ("promotions", "news"): its category's caps count it, and
    /// devices that switched the category off get none of it.
    public var category: String?
    /// A message a person asked for or must get (an order shipped, a password reset): no
    /// frequency cap stops it or counts it, and the control group gets it. Only a publisher or
    /// an admin may mark a campaign so.
    public var transactional = false

    public init(maxPerMinute: Int? = nil, spreadMinutes: Int? = nil, latestDeliveryMinutes: Int? = nil, window: SendingWindow? = nil,
                recipientTime: RecipientTime? = nil) {
        self.maxPerMinute = maxPerMinute
        self.spreadMinutes = spreadMinutes
        self.latestDeliveryMinutes = latestDeliveryMinutes
        self.window = window
        self.recipientTime = recipientTime
    }

    public var isEmpty: Bool { self == DeliveryControls() }

    /// When a run due at `occurrence` stops sending; nil without a latest-delivery time, or when
    /// it counts from each recipient's wave instead (`RecipientWaves`).
    public func expiry(ofRunDueAt occurrence: Date) -> Date? {
        guard recipientTime == nil else { return nil }
        return latestDeliveryMinutes.map { occurrence.addingTimeInterval(Double($0) * 60) }
    }

    /// The message lifetime FCM is given: the campaign's own expiry capped at the latest-delivery
    /// time, so nothing reaches a device after it (android.ttl, apns-expiration, webpush TTL).
    public func cappedExpiry(_ expirySeconds: Int?) -> Int? {
        guard let latest = latestDeliveryMinutes else { return expirySeconds }
        return min(expirySeconds ?? Int.max, latest * 60)
    }

    /// Whether the run's requests are paced (`max_per_minute` or a spread): each falls due at its
    /// own time, one spacing after the one before.
    public var isPaced: Bool { maxPerMinute != nil || spreadMinutes != nil }

    /// Seconds between two requests of a run of `requests`: to keep within `maxPerMinute`, or to
    /// fill `spreadMinutes` evenly; nil without a spread.
    public func spacingSeconds(requests: Int) -> Double? {
        if let maxPerMinute { return 60 / Double(maxPerMinute) }
        if let spreadMinutes, requests > 1 { return Double(spreadMinutes) * 60 / Double(requests) }
        return nil
    }

    /// The contract form, unset members left out.
    public func toJSON() -> JSON {
        var object = JSONObject()
        if let maxPerMinute { object["max_per_minute"] = .number(Double(maxPerMinute)) }
        if let spreadMinutes { object["spread_minutes"] = .number(Double(spreadMinutes)) }
        if let latestDeliveryMinutes { object["latest_delivery_minutes"] = .number(Double(latestDeliveryMinutes)) }
        object["window"] = window?.toJSON()
        object["recipient_time"] = recipientTime?.toJSON()
        if let category { object["category"] = .string(category) }
        if transactional { object["transactional"] = true }
        return .object(object)
    }
}

extension CampaignSpec {
    /// The campaign as it is sent: its message lifetime capped at its latest-delivery time.
    public var forSending: CampaignSpec {
        var spec = self
        spec.options.expirySeconds = delivery.cappedExpiry(options.expirySeconds)
        return spec
    }
}
