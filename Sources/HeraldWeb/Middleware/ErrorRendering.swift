import HeraldHTTP

/// Anything the links after it throw, answered by the route's face: problem+json for the API,
/// an error page for pages, in the language the request had reached.
struct ErrorRendering: Middleware {
    let pages: PageRenderer

    func handle(_ context: inout RequestContext, _ route: Route,
                next: (inout RequestContext) throws -> HTTPResponse) throws -> HTTPResponse {
        do {
            return try next(&context)
        } catch {
            // In the language the request had reached (a page's viewer's own, once known).
            switch route.face {
            case .api: return ProblemRenderer.response(for: error, log: context.log, words: context.words)
            case .page: return ErrorPageRenderer.response(for: error, context: context, pages: pages)
            }
        }
    }
}
