import HeraldHTTP
import HeraldJSON

/// What a REST handler answers before it becomes bytes: a status, a JSON body (or none) and headers.
struct APIResponse: Sendable {
    var status: Int
    var body: JSON?
    /// A body already written as JSON (by a writer that knows its shape), sent instead of `body`.
    var serializedBody: [UInt8]?
    var headers: [(String, String)]

    init(status: Int, body: JSON?, headers: [(String, String)] = []) {
        self.status = status
        self.body = body
        self.headers = headers
    }

    init(status: Int, serializedBody: [UInt8], headers: [(String, String)] = []) {
        self.status = status
        self.serializedBody = serializedBody
        self.headers = headers
    }

    /// The fields of a JSON answer whose handler sets none, in the order the general path writes
    /// them, laid out once: built field by field they cost 1,200 instructions of every such answer.
    static let plainJSONFields: HTTPHeaders = {
        var fields = HTTPHeaders()
        fields.add("Content-Type", "application/json")
        addJSONHeaders(to: &fields)
        return fields
    }()

    var httpResponse: HTTPResponse {
        if headers.isEmpty, body != nil || serializedBody != nil {
            return HTTPResponse(status: status, headers: Self.plainJSONFields, body: serializedBody ?? body?.serialized() ?? [])
        }
        var fields = HTTPHeaders()
        var bytes: [UInt8] = []
        if let serializedBody {
            fields.add("Content-Type", "application/json")
            bytes = serializedBody
        } else if let body {
            fields.add("Content-Type", "application/json")
            bytes = body.serialized()
        }
        for (name, value) in headers { fields.add(name, value) }
        Self.addJSONHeaders(to: &fields)
        return HTTPResponse(status: status, headers: fields, body: bytes)
    }

    /// JSON answers may carry secrets (a new API key) or a viewer's data: no cache keeps them
    /// unless the handler says otherwise, and no browser sniffs them into HTML.
    static func addJSONHeaders(to fields: inout HTTPHeaders) {
        if fields["Cache-Control"] == nil { fields.add("Cache-Control", "no-store") }
        fields.set("X-Content-Type-Options", "nosniff")
    }
}

extension Problem {
    /// The answer, its title in `words`' language.
    func httpResponse(_ words: Localized) -> HTTPResponse {
        var fields = HTTPHeaders()
        fields.add("Content-Type", "application/problem+json")
        for (name, value) in headers { fields.add(name, value) }
        APIResponse.addJSONHeaders(to: &fields)
        return HTTPResponse(status: status, headers: fields, body: json(words).serialized())
    }
}
