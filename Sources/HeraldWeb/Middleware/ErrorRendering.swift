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
            let failed = context
            return Localized.$language.withValue(failed.language) {
                switch route.face {
                case .api: ProblemRenderer.response(for: error, log: failed.log)
                case .page: ErrorPageRenderer.response(for: error, context: failed, pages: pages)
                }
            }
        }
    }
}
