import HeraldApp
import HeraldHTTP

/// The pages' one error renderer: whatever a page handler or the middleware threw becomes an
/// HTML page with the layout, the same status the API would give, and a sentence a marketer can
/// act on. Anything that is not an `AppError` is logged with the request id and shown as a 500.
enum ErrorPageRenderer {
    static func response(for error: any Error, context: RequestContext, pages: PageRenderer) -> HTTPResponse {
        let (status, heading, text): (Int, String, String)
        switch error {
        case let error as AppError:
            switch error {
            case .notFound(let what):
                (status, heading, text) = (404, "Not found", "\(what) does not exist (it may have been deleted).")
            case .invalid(let errors, let title):
                (status, heading, text) = (422, title, errors.errors.map(\.message).joined(separator: "; ") + ".")
            case .versionMismatch:
                (status, heading, text) = (409, "Someone else saved this first", error.message)
            case .notAllowed(let detail):
                return pages.page(AccessDeniedView(context, message: detail), status: 403)
            case .conflict(_, let title, let detail, _):
                (status, heading, text) = (409, title, detail)
            case .refused(_, let title, let detail):
                (status, heading, text) = (422, title, detail)
            case .sendingNotConfigured:
                (status, heading, text) = (503, "Sending is not configured", error.message)
            case .unavailable:
                context.log.warning("database unavailable: \(error)")
                var response = pages.page(MessageView(context, heading: "Herald cannot reach its database",
                                                      text: "Nothing was lost; try again in a moment."), status: 503)
                response.headers.set("Retry-After", "5")
                return response
            case .rateLimited(let detail, let seconds):
                var response = pages.page(MessageView(context, heading: "Too many attempts", text: detail), status: 429)
                response.headers.set("Retry-After", String(seconds))
                return response
            }
        case let problem as Problem:
            (status, heading, text) = (problem.status, problem.title, problem.detail ?? problem.title)
        default:
            context.log.error("page failed: \(error)")
            (status, heading, text) = (500, "Something went wrong", "The error was logged; try again, and tell an administrator if it persists.")
        }
        return pages.page(MessageView(context, heading: heading, text: text), status: status)
    }
}
