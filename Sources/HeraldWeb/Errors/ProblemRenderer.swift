import HeraldApp
import HeraldCore
import HeraldHTTP
import HeraldJSON

/// The REST API's one error renderer: whatever a handler or the middleware threw becomes an
/// `application/problem+json` answer. `AppError`s map by kind; a `Problem` (an HTTP-level
/// refusal: malformed JSON, a missing If-Match) is sent as is; anything else is logged with the
/// request id and answered 500 without detail.
enum ProblemRenderer {
    static func response(for error: any Error, log: RequestLog, words: Localized) -> HTTPResponse {
        problem(for: error, log: log, words: words).httpResponse(words)
    }

    static func problem(for error: any Error, log: RequestLog, words: Localized) -> Problem {
        switch error {
        case let problem as Problem:
            return problem
        case let error as AppError:
            if case .unavailable = error { log.warning("database unavailable: \(error)") }
            return problem(for: error, words: words)
        default:
            log.error("unhandled error: \(error)")
            return Problem.internalError(words)
        }
    }

    static func problem(for error: AppError, words: Localized) -> Problem {
        switch error {
        case .notFound(let missing):
            return Problem.notFound(missing, words)
        case .invalid(let errors, let title):
            return Problem.validation(errors, title: title, words)
        case .versionMismatch(let version, _):
            return Problem(status: 412, code: "version_mismatch", title: "The campaign has changed", detail: words.message(error),
                           extensions: ["current_version": .number(Double(version))], headers: [("ETag", "\"\(version)\"")])
        case .notAllowed(let detail):
            return Problem(status: 403, code: "forbidden", title: "Forbidden", detail: detail)
        case .conflict(let code, let title, let detail, let status):
            var extensions: JSONObject = [:]
            if let status { extensions["current_status"] = .string(status.rawValue) }
            return Problem(status: 409, code: code, title: title, detail: words.problemDetail(code: code, detail), extensions: extensions)
        case .refused(let code, let title, let detail):
            return Problem(status: 422, code: code, title: title, detail: words.problemDetail(code: code, detail))
        case .sendingNotConfigured:
            return Problem(status: 503, code: "sending_not_configured", title: "Sending is not configured",
                           detail: words.message(error))
        case .unavailable:
            return Problem.databaseUnavailable(words)
        case .rateLimited(_, let seconds):
            return Problem(status: 429, code: "rate_limited", title: "Too many attempts", detail: words.message(error),
                           headers: [("Retry-After", String(seconds))])
        }
    }
}

extension Problem {
    /// 422 with every failing field, its machine code, message and limit.
    static func validation(_ failure: ValidationErrors, title: String, _ words: Localized) -> Problem {
        fields(failure.errors, status: 422, code: "validation_failed", title: title, words)
    }

    /// 400 for query parameters, in the validation shape: every bad parameter at once with its path.
    static func invalidQuery(_ errors: [FieldError], _ words: Localized) -> Problem {
        fields(errors, status: 400, code: "invalid_query", title: "The query is not valid", words)
    }

    /// The one shape of a refusal that names fields: `errors` with path, code, message and limit.
    static func fields(_ failures: [FieldError], status: Int, code: String, title: String, _ words: Localized) -> Problem {
        let errors: [JSON] = failures.map { error in
            var object: JSONObject = ["path": .string(error.path), "code": .string(error.code), "message": .string(words.fieldError(error))]
            if let limit = error.limit { object["limit"] = .number(Double(limit)) }
            return .object(object)
        }
        let count = failures.count
        return Problem(status: status, code: code, title: title,
                       detail: count == 1 ? words.fieldError(failures[0]) : words.plural("problem.validation_failed.detail", count: count),
                       extensions: ["errors": .array(errors)])
    }
}
