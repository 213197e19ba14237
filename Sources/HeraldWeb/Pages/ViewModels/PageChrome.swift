import HeraldApp
import HeraldCore

/// What `layout.mustache` reads on every page: the title, the viewer (e-mail, role, admin links),
/// the session's CSRF token that every form posts back, what the viewer may change, notices, and
/// the page's language (its `lang` and `dir`, and the switcher's choices).
struct PageChrome: Sendable {
    /// The signed-in user in the top bar.
    struct User: Sendable {
        let email: String
        let role: String
        let isAdmin: Bool
    }

    let title: String
    let user: User?
    let csrfToken: String
    let canEdit: Bool
    let flash: [String]
    /// The page's texts and figures, in its language.
    let words: Localized
    var language: Language { words.language }
    /// `<html lang>` and `<html dir>`.
    let lang: String
    let dir: String
    /// The switcher's options, each language named in itself.
    let languages: [Choice]
    /// Where the switcher brings the viewer back to: this page when it can be fetched again.
    let here: String
    /// For a visitor not signed in: the page to open after signing in, kept by the switcher.
    let next: String
    /// The image limit, for `Public/upload-limit.js` to refuse a file before it is uploaded.
    let imageMaxBytes = ImageInspector.maximumBytes

    /// A page that shows no viewer even when a session exists (the sign-in form).
    init(title: String, words: Localized, viewer: Viewer? = nil, flash: [String] = [], here: String = "/", next: String = "") {
        self.title = title
        self.words = words
        user = viewer.map { User(email: $0.email, role: words.text("role.\($0.role.rawValue)"), isAdmin: $0.role >= .admin) }
        csrfToken = viewer?.csrfToken ?? ""
        canEdit = (viewer?.role ?? .viewer) >= .editor
        self.flash = flash
        lang = words.language.rawValue
        dir = words.language.direction
        languages = Language.allCases.map { Choice($0.rawValue, text: $0.nativeName, selected: $0 == words.language) }
        self.here = here
        self.next = next
    }

    init(_ context: RequestContext, title: String, flash: [String] = []) {
        let method = context.request.method
        self.init(title: title, words: context.words, viewer: context.viewer, flash: flash,
                  here: method == .get || method == .head ? context.request.target : "/campaigns")
    }
}
