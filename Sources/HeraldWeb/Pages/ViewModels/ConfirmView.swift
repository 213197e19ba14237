import HeraldHTTP

/// "Are you sure?" without JavaScript: an irreversible action posted without `confirmed=yes`
/// comes back as this page, which says what will happen and posts the same fields again with
/// the confirmation. With JavaScript the same words appear in a dialog before the first post
/// (`data-confirm` on the form, `Public/confirm.js`), so the page is never seen.
struct ConfirmView: PageView {
    struct Field: Sendable {
        let name: String
        let value: String
    }

    static let template = "confirm"
    static let field = "confirmed"

    let chrome: PageChrome
    let heading: String
    let text: String
    let action: String
    let fields: [Field]
    let confirmLabel: String
    let danger: Bool
    let back: String

    /// Whether the post carries the author's confirmation.
    static func isConfirmed(_ context: RequestContext) -> Bool {
        context.form.value(field) == "yes"
    }

    /// The confirmation page for this post, asking to `confirmLabel`; nil when already confirmed.
    static func unlessConfirmed(_ context: RequestContext, pages: PageRenderer, heading: String, text: String,
                                confirmLabel: String, danger: Bool = true, back: String) -> HTTPResponse? {
        guard !isConfirmed(context) else { return nil }
        return page(context, pages: pages, heading: heading, text: text, confirmLabel: confirmLabel, danger: danger, back: back)
    }

    /// The confirmation page for this post, whether or not it was confirmed: for an action that
    /// reads what it asks about only when it asks.
    static func page(_ context: RequestContext, pages: PageRenderer, heading: String, text: String,
                     confirmLabel: String, danger: Bool = true, back: String) -> HTTPResponse {
        let fields = context.form.fields.filter { $0.name != "csrf_token" && $0.name != field }.map { Field(name: $0.name, value: $0.value) }
        return pages.page(ConfirmView(chrome: PageChrome(context, title: heading), heading: heading, text: text,
                                      action: context.request.path, fields: fields, confirmLabel: confirmLabel, danger: danger, back: back))
    }
}
