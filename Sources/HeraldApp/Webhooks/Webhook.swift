import Foundation
import HeraldCore

/// An endpoint that hears of Herald's events.
public struct Webhook: Sendable, Equatable {
    public var id: WebhookID
    public var url: String
    public var events: [WebhookEventType]
    public var description: String
    public var createdBy: String
    public var createdAt: Date
    /// Deliveries still being tried, and those given up after the last retry.
    public var pending: Int
    public var dead: Int
}

/// A webhook as created: the only time its signing secret is shown.
public struct CreatedWebhook: Sendable, Equatable {
    public var webhook: Webhook
    public var secret: String
}

/// One event posted (or to be posted) to one endpoint: the receiver's `Herald-Webhook-Id`.
public struct WebhookDelivery: Sendable, Equatable {
    public var id: Int64
    public var webhookID: WebhookID
    public var eventID: WebhookEventID
    public var eventType: String
    public var status: WebhookDeliveryStatus
    public var attempts: Int
    /// When it is tried next (pending only).
    public var nextAttemptAt: Date?
    public var lastAttemptAt: Date?
    /// The receiver's last status code, or nil when there was no answer (`lastError` says why).
    public var responseStatus: Int?
    public var lastError: String?
    public var createdAt: Date
    public var deliveredAt: Date?
    /// The exact JSON posted and signed.
    public var body: String
}
