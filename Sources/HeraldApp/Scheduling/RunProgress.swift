import FCMMessage
import Foundation
import HeraldCore

/// A run of a campaign as its progress is read (the runs API, the report): what it planned and
/// where each variant's requests stand.
public struct RunProgress: Sendable, Equatable {
    /// A variant's requests by state.
    public struct Counts: Sendable, Equatable {
        public var planned = 0, sent = 0, failed = 0, retrying = 0, pending = 0, cancelled = 0, expired = 0
        /// Stopped by a frequency cap: neither sent nor failed.
        public var capped = 0
    }

    public struct Variant: Sendable, Equatable {
        public var key: String
        public var counts: Counts
    }

    /// A stretch of sending hours.
    public struct Window: Sendable, Equatable {
        public var opensAt: Date, closesAt: Date
    }

    /// A recipient-time run's wave: the devices whose local time is one instant.
    public struct Wave: Sendable, Equatable {
        public var at: Date
        public var devices: Int, sent: Int, waiting: Int, expired: Int
    }

    public var id: RunID
    public var status: RunStatus
    public var planned: Int
    public var warnings: [String]
    public var dueAt: Date
    public var startedAt: Date
    public var finishedAt: Date?
    /// Per variant, in key order.
    public var variants: [Variant]
    /// The variant a winner's rollout sends.
    public var rolloutVariant: String?
    /// The version it sends, frozen when it started (nil for runs older than the column).
    public var campaignVersion: Int?
    /// Its latest-delivery time.
    public var expiresAt: Date?
    /// While it sends within sending hours: the stretch it sends in now or waits for.
    public var window: Window?
    /// While it sends: how many other runs' topic fan-outs go before it (one at a time).
    public var fanOutQueueAhead: Int?
    /// At recipient time, its waves in time order.
    public var waves: [Wave]?
}

/// One request of a campaign as the deliveries API and the report list it (a streamed run's
/// failed device too).
public struct DeliveryRecord: Sendable, Equatable {
    /// Whom a request goes to: v1's own target.
    public typealias Target = Message.Target

    /// FCM's error code and message.
    public struct Refusal: Sendable, Equatable {
        public var code: String, message: String
    }

    public var id: Int64
    public var runID: RunID
    public var variant: String
    public var target: Target
    public var status: DeliveryStatus
    public var attempts: Int
    /// FCM's name of the message it sent.
    public var messageName: String?
    /// FCM's refusal, for a failed request.
    public var error: Refusal?
    public var sentAt: Date?
    /// When it is tried next, while it is open.
    public var nextAttemptAt: Date?
}
