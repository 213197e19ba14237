import HeraldHTTP
import Mustache

/// Renders server-side pages from the Mustache templates in `Pages/Templates`, which are compiled
/// into the binary. `{{name}}` escapes HTML; raw HTML needs `{{{name}}}` and is used only for
/// markup Herald builds itself (for example an SVG chart), never for user input.
struct PageRenderer: Sendable {
    let library: MustacheLibrary

    /// Every template, by the name pages use. Add a template here when you add a file.
    static let templates: [(name: String, bytes: [UInt8])] = [
        ("layout", PackageResources.layout_mustache),
        ("sign-in", PackageResources.sign_in_mustache),
        ("access-denied", PackageResources.access_denied_mustache),
        ("accounts-users", PackageResources.accounts_users_mustache),
        ("accounts-api-keys", PackageResources.accounts_api_keys_mustache),
        ("accounts-audit", PackageResources.accounts_audit_mustache),
        ("message", PackageResources.message_mustache), ("campaigns", PackageResources.campaigns_mustache),
        ("preview", PackageResources.preview_mustache), ("composer", PackageResources.composer_mustache),
        ("composer-variant", PackageResources.composer_variant_mustache), ("composer-data-row", PackageResources.composer_data_row_mustache),
        ("review", PackageResources.review_mustache),
        ("confirm", PackageResources.confirm_mustache), ("report", PackageResources.report_mustache),
        ("devices", PackageResources.devices_mustache), ("device-topics", PackageResources.device_topics_mustache),
        ("segments", PackageResources.segments_mustache),
        ("segment", PackageResources.segment_mustache), ("segment-editor", PackageResources.segment_editor_mustache),
        ("webhooks", PackageResources.webhooks_mustache), ("webhook-log", PackageResources.webhook_log_mustache),
        ("contact-policy", PackageResources.contact_policy_mustache),
        ("journeys", PackageResources.journeys_mustache), ("journey", PackageResources.journey_mustache),
    ]

    init() {
        var library = MustacheLibrary()
        for template in Self.templates {
            do {
                try library.register(String(decoding: template.bytes, as: UTF8.self), named: template.name)
            } catch {
                // A broken template is a programming error caught by the page tests, not a runtime condition.
                preconditionFailure("template \(template.name) does not parse: \(error)")
            }
        }
        self.library = library
    }

    /// The page as HTML with Herald's security headers; `status` 200 unless said otherwise.
    /// The texts are the chrome's language's (`{{t.key}}`).
    func page<View: PageView>(_ view: View, status: Int = 200) -> HTTPResponse {
        let texts = TemplateTexts(tables: .shipped, language: view.chrome.language, key: "")
        guard let html = library.render(LocalizedPage(view: view, texts: texts), withTemplate: View.template) else {
            preconditionFailure("no template named \(View.template)")
        }
        var headers = HTTPHeaders()
        headers.add("Content-Type", "text/html; charset=utf-8")
        headers.add("Cache-Control", "no-store")
        Self.addSecurityHeaders(to: &headers)
        return HTTPResponse(status: status, headers: headers, body: Array(html.utf8))
    }

    /// A 303 to `location` (after a form post, so reloading does not post again).
    static func redirect(to location: String, headers extra: [(String, String)] = []) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.add("Location", location)
        for (name, value) in extra { headers.add(name, value) }
        addSecurityHeaders(to: &headers)
        return HTTPResponse(status: 303, headers: headers)
    }

    /// A strict policy: scripts and styles from Herald only (no inline script), images from Herald
    /// or https, no framing, forms post back to Herald only.
    static let contentSecurityPolicy = [
        "default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self' https: data:",
        "connect-src 'self'", "object-src 'none'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'",
    ].joined(separator: "; ")

    static func addSecurityHeaders(to headers: inout HTTPHeaders) {
        headers.set("Content-Security-Policy", contentSecurityPolicy)
        headers.set("X-Content-Type-Options", "nosniff")
        headers.set("Referrer-Policy", "same-origin")
        headers.set("X-Frame-Options", "DENY")
    }
}
