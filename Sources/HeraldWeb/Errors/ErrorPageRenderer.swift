import HeraldApp
import HeraldHTTP

/// The pages' one error renderer: whatever a page handler or the middleware threw becomes an
/// HTML page with the layout, the same status the API would give, and a sentence a marketer can
/// act on. Anything that is not an `AppError` is logged with the request id and shown as a 500.
enum ErrorPageRenderer {
    static func response(for error: any Error, context: RequestContext, pages: PageRenderer) -> HTTPResponse {
        let words = context.words
        let (status, heading, text): (Int, String, String)
        switch error {
        case let error as AppError:
            switch error {
            case .notFound(let missing):
                (status, heading, text) = (404, words.title(error), words.text("error.page.not_found", words.subject(missing)))
            case .invalid(let errors, let title):
                (status, heading, text) = (422, words.problemTitle(code: "validation_failed", title), words.fieldErrors(errors.errors) + words.text("sentence.end"))
            case .versionMismatch:
                (status, heading, text) = (409, words.text("error.page.conflict_heading"), words.message(error))
            case .notAllowed(let detail):
                return pages.page(AccessDeniedView(context, message: detail), status: 403)
            case .conflict:
                (status, heading, text) = (409, words.title(error), words.message(error))
            case .refused:
                (status, heading, text) = (422, words.title(error), words.message(error))
            case .sendingNotConfigured:
                (status, heading, text) = (503, words.title(error), words.message(error))
            case .unavailable:
                context.log.warning("database unavailable: \(error)")
                var response = pages.page(MessageView(context, heading: words.text("error.page.database_heading"),
                                                      text: words.text("error.page.database_text")), status: 503)
                response.headers.set("Retry-After", "5")
                return response
            case .rateLimited(_, let seconds):
                var response = pages.page(MessageView(context, heading: words.title(error), text: words.message(error)), status: 429)
                response.headers.set("Retry-After", String(seconds))
                return response
            }
        case let problem as Problem:
            (status, heading, text) = (problem.status, problem.title, problem.detail ?? problem.title)
        default:
            context.log.error("page failed: \(error)")
            (status, heading, text) = (500, words.text("error.page.internal_heading"), words.text("error.page.internal_text"))
        }
        return pages.page(MessageView(context, heading: heading, text: text), status: status)
    }
}
