import HeraldHTTP
import HeraldJSON
import HeraldPostgres

/// What a REST handler answers before it becomes bytes: a status, a JSON body (or none) and headers.
public struct APIResponse: Sendable {
    public var status: Int
    public var body: JSON?
    public var headers: [(String, String)]

    public init(status: Int, body: JSON?, headers: [(String, String)] = []) {
        self.status = status
        self.body = body
        self.headers = headers
    }

    var httpResponse: HTTPResponse {
        var fields = HTTPHeaders()
        var bytes: [UInt8] = []
        if let body {
            fields.add("Content-Type", "application/json")
            bytes = body.serialized()
        }
        for (name, value) in headers { fields.add(name, value) }
        return HTTPResponse(status: status, headers: fields, body: bytes)
    }
}

extension Problem {
    var httpResponse: HTTPResponse {
        var fields = HTTPHeaders()
        fields.add("Content-Type", "application/problem+json")
        for (name, value) in headers { fields.add(name, value) }
        return HTTPResponse(status: status, headers: fields, body: json.serialized())
    }
}

/// Turns a throwing JSON handler into an HTTP handler: a `Problem` becomes its problem+json, a
/// database that cannot be reached becomes 503 with Retry-After, anything else a logged 500.
func apiHandler(_ log: Log, _ handler: @escaping @Sendable (HTTPRequest) throws -> APIResponse) -> HTTPHandler {
    { request in
        do {
            return try handler(request).httpResponse
        } catch let problem as Problem {
            return problem.httpResponse
        } catch let error as PostgresError where error.isConnectionFailure || error.kind == .poolExhausted {
            log.warning("database unavailable: \(error)", request: request)
            return Problem.databaseUnavailable().httpResponse
        } catch {
            log.error("unhandled error: \(error)", request: request)
            return Problem.internalError().httpResponse
        }
    }
}

extension HTTPRequest {
    /// The body parsed as JSON, after checking that it claims to be JSON.
    func jsonBody(accepting mediaTypes: [String] = ["application/json"]) throws(Problem) -> JSON {
        let contentType = headers["Content-Type"]?.split(separator: ";").first
            .map { $0.trimmingSpaces.lowercased() }
        guard let contentType, mediaTypes.contains(contentType) else {
            throw Problem.unsupportedMediaType(mediaTypes.joined(separator: " or "))
        }
        do {
            return try JSON.parse(body)
        } catch {
            throw Problem.malformedJSON(line: error.line, column: error.column, reason: error.reason)
        }
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs (HTTP's optional white space).
    var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
