import FCMMessage
import Foundation
import HeraldApp
import HeraldCore
import HeraldJSON

/// `/api/v1/webhooks`: endpoints that hear of Herald's events, their delivery logs, and manual
/// redelivery. For admins: an endpoint receives data about every campaign and device.
struct WebhooksAPI: Sendable {
    static let defaultDeliveryPage = 50
    static let maximumDeliveryPage = 500

    let webhooks: WebhookService

    func list(_ context: RequestContext) throws -> APIResponse {
        APIResponse(status: 200, body: ["items": .array(try webhooks.list().map(Self.json))])
    }

    /// The secret is in this answer only: the receiver's operator copies it now.
    func create(_ context: RequestContext) throws -> APIResponse {
        let created = try webhooks.create(try context.jsonBody(), by: context.actor)
        var json = Self.json(created.webhook).objectValue ?? [:]
        json["secret"] = .string(created.secret)
        return APIResponse(status: 201, body: .object(json),
                           headers: [("Location", "/api/v1/webhooks/\(created.webhook.id)"), ("Cache-Control", "no-store")])
    }

    func get(_ context: RequestContext) throws -> APIResponse {
        APIResponse(status: 200, body: Self.json(try webhooks.get(try context.webhookID())))
    }

    func delete(_ context: RequestContext) throws -> APIResponse {
        try webhooks.delete(try context.webhookID(), by: context.actor)
        return APIResponse(status: 204, body: nil)
    }

    func deliveries(_ context: RequestContext) throws -> APIResponse {
        let (limit, before) = try context.pageQuery(defaultLimit: Self.defaultDeliveryPage, maximumLimit: Self.maximumDeliveryPage) { value in
            Int64(value).flatMap { $0 > 0 ? $0 : nil }
        }
        let page = try webhooks.deliveries(of: try context.webhookID(), before: before, limit: limit)
        return APIResponse(status: 200, body: ["items": .array(page.deliveries.map(Self.json)),
                                               "next_cursor": page.next.map { .string(String($0)) } ?? .null])
    }

    func redeliver(_ context: RequestContext) throws -> APIResponse {
        let text = context.parameter("delivery")
        guard let id = Int64(text), id > 0 else { throw AppError.notFound(.webhookDelivery(text)) }
        return APIResponse(status: 202, body: Self.json(try webhooks.redeliver(id, of: try context.webhookID(), by: context.actor)))
    }

    static func json(_ webhook: Webhook) -> JSON {
        ["id": .string(webhook.id.description), "url": .string(webhook.url), "events": .array(webhook.events.map { .string($0.rawValue) }),
         "description": .string(webhook.description), "created_by": .string(webhook.createdBy), "created_at": JSON.time(webhook.createdAt),
         "deliveries_pending": .number(Double(webhook.pending)), "deliveries_dead": .number(Double(webhook.dead))]
    }

    static func json(_ delivery: WebhookDelivery) -> JSON {
        ["id": .string(String(delivery.id)), "webhook_id": .string(delivery.webhookID.description), "event_id": .string(delivery.eventID.description),
         "event": .string(delivery.eventType), "status": .string(delivery.status.rawValue), "attempts": .number(Double(delivery.attempts)),
         "next_attempt_at": delivery.nextAttemptAt.map(JSON.time) ?? .null, "last_attempt_at": delivery.lastAttemptAt.map(JSON.time) ?? .null,
         "response_status": delivery.responseStatus.map { .number(Double($0)) } ?? .null,
         "last_error": delivery.lastError.map(JSON.string) ?? .null, "created_at": JSON.time(delivery.createdAt),
         "delivered_at": delivery.deliveredAt.map(JSON.time) ?? .null, "body": .string(delivery.body)]
    }

}
