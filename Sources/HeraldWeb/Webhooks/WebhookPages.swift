import HeraldApp
import HeraldCore
import HeraldHTTP
import HeraldJSON

/// The webhooks pages (admin): endpoints, their delivery logs, redelivery.
struct WebhookPages: Sendable {
    let webhooks: WebhookService
    let pages: PageRenderer

    func list(_ context: RequestContext) throws -> HTTPResponse { try listPage(context) }

    func listPage(_ context: RequestContext, created: CreatedWebhook? = nil, message: String? = nil, error: String? = nil,
                  status: Int = 200) throws -> HTTPResponse {
        let words = context.words
        let chrome = PageChrome(context, title: words.text("nav.webhooks"), flash: message.map { [$0] } ?? [])
        // A refused form comes back as it was filled in.
        let form = error == nil ? nil : context.form
        return pages.page(WebhooksView(chrome: chrome, webhooks: try webhooks.list(), created: created, error: error,
                                       url: form?.value("url") ?? "", description: form?.value("description") ?? "",
                                       chosen: Set(form?.fields.filter { $0.name == "events" }.map(\.value) ?? [])), status: status)
    }

    func create(_ context: RequestContext) throws -> HTTPResponse {
        let words = context.words
        let events = context.form.fields.filter { $0.name == "events" }.map { JSON.string($0.value) }
        let body: JSON = ["url": .string(context.form.value("url") ?? ""), "events": .array(events),
                          "description": .string(context.form.value("description") ?? "")]
        do {
            return try listPage(context, created: try webhooks.create(body, by: context.actor))
        } catch let error as AppError where AccountsPages.shownInPage(error) {
            return try listPage(context, error: words.message(error), status: ProblemRenderer.problem(for: error, words: words).status)
        }
    }

    func log(_ context: RequestContext) throws -> HTTPResponse { try logPage(context) }

    func logPage(_ context: RequestContext, message: String? = nil) throws -> HTTPResponse {
        let words = context.words
        let id = try context.webhookID()
        let webhook = try webhooks.get(id)
        let before = context.query("cursor").flatMap { Int64($0) }
        let page = try webhooks.deliveries(of: id, before: before, limit: 50)
        let chrome = PageChrome(context, title: words.text("webhooks.log_title"), flash: message.map { [$0] } ?? [])
        return pages.page(WebhookLogView(chrome: chrome, webhook: WebhooksView.Row(webhook, words: words), deliveries: page.deliveries.map { WebhookLogView.Row($0, words: words) },
                                         next: page.next.map(String.init)))
    }

    func delete(_ context: RequestContext) throws -> HTTPResponse {
        let words = context.words
        let webhook = try webhooks.get(try context.webhookID())
        let row = WebhooksView.Row(webhook, words: words)
        if let page = ConfirmView.unlessConfirmed(context, pages: pages, heading: words.text("webhooks.delete.heading"), text: row.deleteQuestion,
                                                  confirmLabel: words.text("webhooks.delete"), back: "/webhooks") {
            return page
        }
        try webhooks.delete(webhook.id, by: context.actor)
        return try listPage(context, message: words.text("webhooks.deleted_message", words.isolate(webhook.url)))
    }

    func redeliver(_ context: RequestContext) throws -> HTTPResponse {
        let words = context.words
        let text = context.parameter("delivery")
        guard let delivery = Int64(text), delivery > 0 else { throw AppError.notFound(.webhookDelivery(text)) }
        let copy = try webhooks.redeliver(delivery, of: try context.webhookID(), by: context.actor)
        return try logPage(context, message: words.text("webhooks.redelivered_message", words.isolate(copy.eventType)))
    }
}
