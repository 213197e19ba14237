import HeraldApp
import HeraldHTTP

/// `POST /language`: the switcher in every page's top bar (a plain form, so it works without
/// JavaScript). The choice is stored on the user, so it follows them to any browser; the page
/// they were on comes back in the new language.
struct LanguagePages: Sendable {
    let accounts: AccountService

    func choose(_ context: RequestContext) throws -> HTTPResponse {
        let words = context.words
        guard let userID = context.viewer?.userID else {
            throw AppError.notAllowed(words.text("language.sessions_only"))
        }
        try accounts.setLanguage(userID: userID, language: context.form.value("language") ?? "",
                                 languages: Language.allCases.map(\.rawValue))
        return PageRenderer.redirect(to: Authentication.safeNext(context.form.value("next")))
    }
}
