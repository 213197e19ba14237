import FCMMessage
import Foundation
import HeraldApp
import HeraldCore

/// `/webhooks`: the endpoints, the form that registers one, and its secret once.
struct WebhooksView: PageView {
    struct Row: Sendable {
        let id: String
        let url: String
        let description: String
        let events: [String]
        let pending: String
        let dead: String
        let hasDead: Bool
        let createdAt: String
        let createdBy: String
        let deleteQuestion: String

        init(_ webhook: Webhook, words: Localized) {
            id = webhook.id.description
            url = webhook.url
            description = webhook.description
            events = webhook.events.map(\.rawValue)
            pending = words.number(webhook.pending)
            dead = words.number(webhook.dead)
            hasDead = webhook.dead > 0
            createdAt = WebhooksView.time(webhook.createdAt, words: words)
            createdBy = webhook.createdBy
            deleteQuestion = words.text("webhooks.delete.question", words.isolate(webhook.url))
        }
    }

    /// An event to choose, with what it tells.
    struct Event: Sendable {
        let name: String
        let text: String
        let checked: Bool
    }

    struct Created: Sendable {
        let url: String
        let secret: String
    }

    static let template = "webhooks"
    let chrome: PageChrome
    let webhooks: [Row]
    let events: [Event]
    let url: String
    let description: String
    let created: Created?
    let error: String?

    init(chrome: PageChrome, webhooks: [Webhook], created: CreatedWebhook? = nil, error: String? = nil,
         url: String = "", description: String = "", chosen: Set<String> = []) {
        let words = chrome.words
        self.chrome = chrome
        self.webhooks = webhooks.map { Row($0, words: words) }
        events = WebhookEventType.allCases.map {
            Event(name: $0.rawValue, text: words.text("webhooks.event.\($0.rawValue)"), checked: chosen.contains($0.rawValue))
        }
        self.url = url
        self.description = description
        self.created = created.map { Created(url: $0.webhook.url, secret: $0.secret) }
        self.error = error
    }

    static func time(_ date: Date, words: Localized) -> String { words.shortTime(date) }
}

/// `/webhooks/{id}`: an endpoint's delivery log, newest first, with redelivery.
struct WebhookLogView: PageView {
    struct Row: Sendable {
        let id: String
        let event: String
        let status: String
        let statusText: String
        let attempts: String
        let createdAt: String
        let answer: String
        let next: String

        init(_ delivery: WebhookDelivery, words: Localized) {
            id = String(delivery.id)
            event = delivery.eventType
            status = delivery.status.rawValue
            statusText = words.text("webhooks.status.\(delivery.status.rawValue)")
            attempts = words.number(delivery.attempts)
            createdAt = WebhooksView.time(delivery.createdAt, words: words)
            answer = delivery.responseStatus.map { words.text("webhooks.answered", words.isolate(String($0))) }
                ?? delivery.lastError ?? ""
            next = delivery.nextAttemptAt.map { words.text("webhooks.next_attempt", WebhooksView.time($0, words: words)) } ?? ""
        }
    }

    static let template = "webhook-log"
    let chrome: PageChrome
    let webhook: WebhooksView.Row
    let deliveries: [Row]
    let next: String?
}
