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
            if route.face == .page, let chosen = (context.viewer?.language ?? context.query("lang")).flatMap(Language.init(rawValue:)) {
                context.language = chosen
            }
            return try next(&context)
        }
    }
}
