import Foundation
import HeraldJSON

/// How a campaign's requests may go out, beyond when its runs start (the contract's `delivery`
/// object): at most so many a minute, only within local sending hours, and not at all once a
/// run is older than its latest-delivery time.
public struct DeliveryControls: Sendable, Equatable {
    /// At most this many requests a minute for this campaign ("spread"); nil: as fast as the
    /// project's quota lets.
    public var maxPerMinute: Int?
    /// Requests not sent this many minutes after their run was due are dropped as expired, and
    /// no message lives on FCM longer than that.
    public var latestDeliveryMinutes: Int?
    /// The local hours the campaign may send in.
    public var window: SendingWindow?
    /// The schedule's time read in each recipient's own time zone (device audiences); the
    /// latest-delivery time then counts from each device's wave.
    public var recipientTime: RecipientTime?

    public init(maxPerMinute: Int? = nil, latestDeliveryMinutes: Int? = nil, window: SendingWindow? = nil, recipientTime: RecipientTime? = nil) {
        self.maxPerMinute = maxPerMinute
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

    /// Seconds between two requests of one run to keep within `maxPerMinute`; nil without a spread.
    public var spacingSeconds: Double? {
        maxPerMinute.map { 60 / Double($0) }
    }

    /// The contract form, unset members left out.
    public func toJSON() -> JSON {
        var object = JSONObject()
        if let maxPerMinute { object["max_per_minute"] = .number(Double(maxPerMinute)) }
        if let latestDeliveryMinutes { object["latest_delivery_minutes"] = .number(Double(latestDeliveryMinutes)) }
        object["window"] = window?.toJSON()
        object["recipient_time"] = recipientTime?.toJSON()
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
