import HeraldApp
import HeraldJSON

/// An `application/problem+json` answer (RFC 9457): a stable machine `code`, a human `title` and
/// `detail`, and for validation every failing field with its limit. The title is English until the
/// problem is answered (`httpResponse(_:)` says it in the request's language, from
/// `Accept-Language`); a detail built from texts is built in that language by whoever has it.
struct Problem: Error, Sendable, Equatable {
    var status: Int
    var code: String
    var title: String
    var detail: String?
    /// Extra members (for example `errors`, `line`, `column`, `current_version`).
    var extensions: JSONObject
    /// Extra response headers (for example `Allow`, `Retry-After`, `ETag`).
    var headers: [(String, String)]

    init(status: Int, code: String, title: String, detail: String? = nil,
                extensions: JSONObject = [:], headers: [(String, String)] = []) {
        self.status = status
        self.code = code
        self.title = title
        self.detail = detail
        self.extensions = extensions
        self.headers = headers
    }

    /// The problem document, its title in `words`' language.
    func json(_ words: Localized) -> JSON {
        var object: JSONObject = [
            "type": .string("urn:herald:problem:\(code)"),
            "title": .string(words.problemTitle(code: code, title)),
            "status": .number(Double(status)),
            "code": .string(code),
        ]
        if let detail { object["detail"] = .string(detail) }
        for (key, value) in extensions { object[key] = value }
        return .object(object)
    }

    static func == (lhs: Problem, rhs: Problem) -> Bool {
        lhs.json(Localized(language: .en)) == rhs.json(Localized(language: .en)) && lhs.headers.map { "\($0.0): \($0.1)" } == rhs.headers.map { "\($0.0): \($0.1)" }
    }
}

extension Problem {
    static func notFound(_ missing: Missing, _ words: Localized) -> Problem {
        Problem(status: 404, code: "not_found", title: "Not found", detail: words.message(.notFound(missing)))
    }

    static func malformedJSON(line: Int, column: Int, reason: String) -> Problem {
        Problem(status: 400, code: "malformed_json", title: "The request body is not valid JSON",
                detail: "\(reason) at line \(line), column \(column).",
                extensions: ["line": .number(Double(line)), "column": .number(Double(column))])
    }

    static func badRequest(code: String, _ detail: String) -> Problem {
        Problem(status: 400, code: code, title: "Bad request", detail: detail)
    }

    static func unsupportedMediaType(_ expected: String, _ words: Localized) -> Problem {
        Problem(status: 415, code: "unsupported_media_type", title: "Unsupported media type",
                detail: words.text("problem.unsupported_media_type.detail", expected))
    }

    static func databaseUnavailable(_ words: Localized) -> Problem {
        Problem(status: 503, code: "database_unavailable", title: "Service unavailable",
                detail: words.text("problem.database_unavailable.detail"), headers: [("Retry-After", "2")])
    }

    static func internalError(_ words: Localized) -> Problem {
        Problem(status: 500, code: "internal_error", title: "Internal server error",
                detail: words.text("problem.internal_error.detail"))
    }
}
