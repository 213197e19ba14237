import HeraldHTTP

/// The language of the answer: `Accept-Language` first (the API keeps it), then on pages the
/// viewer's own setting, or for a visitor not signed in the `?lang=` the top bar's form asked
/// for. The links after it read texts in it (`context.words`).
enum AnswerLanguage {
    /// From `Accept-Language`, before anyone is known.
    struct Negotiated: Middleware {
        func handle(_ context: inout RequestContext, _ route: Route,
                    next: (inout RequestContext) throws -> HTTPResponse) throws -> HTTPResponse {
            context.language = Language.negotiate(context.request.headers["Accept-Language"])
            return try next(&context)
        }
    }

    /// On pages, once the viewer is known.
    struct Chosen: Middleware {
        func handle(_ context: inout RequestContext, _ route: Route,
                    next: (inout RequestContext) throws -> HTTPResponse) throws -> HTTPResponse {
            AnswerLanguage.choose(&context, face: route.face)
            return try next(&context)
        }
    }

    /// A page's language once its viewer is known: their setting, else the `?lang=` asked for.
    /// `Authentication` applies it as soon as it finds the viewer, so that a refusal it throws
    /// (a role too low, a missing CSRF token) is a page in the viewer's language, not the
    /// browser's, with the top bar's switcher on that language.
    static func choose(_ context: inout RequestContext, face: Face) {
        if face == .page, let chosen = (context.viewer?.language ?? context.query("lang")).flatMap(Language.init(rawValue:)) {
            context.language = chosen
        }
    }
}
