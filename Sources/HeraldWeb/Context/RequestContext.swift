import HeraldApp
import HeraldCore
import HeraldHTTP
import HeraldJSON

/// Everything a handler knows about its request, built once by the middleware chain (see
/// `WebApplication`): the request id, the client's address after proxy trust, the viewer, and
/// the form parsed once (the CSRF check reads the very fields the handler reads).
struct RequestContext: Sendable {
    var request: HTTPRequest
    let requestID: String
    /// The client's IP address: the peer's, or the proxy's `X-Forwarded-For` when trusted.
    var clientAddress: String
    /// The host the client asked for: `X-Forwarded-Host` when the proxy is trusted, else `Host`.
    var host: String {
        get { givenHost ?? proxyTrust?.host(request) ?? "" }
        set { givenHost = newValue }
    }
    /// Where the client reaches Herald ("http://127.0.0.1:8080", "https://herald.example.com"),
    /// from `HERALD_PUBLIC_URL` or the request (see `ProxyTrust.origin`).
    var origin: String {
        get { givenOrigin ?? proxyTrust?.origin(request) ?? "" }
        set { givenOrigin = newValue }
    }
    /// Set by the `ProxyTrust` link: `host` and `origin` are read from the request when asked.
    /// Few handlers ask (absolute image URLs), and working both out for every request was a tenth
    /// of a health check (callgrind).
    var proxyTrust: ProxyTrust?
    private var givenHost: String?
    private var givenOrigin: String?

    /// `host` and `origin` from now on as `proxyTrust` reads them from the request.
    mutating func trustProxy(_ proxyTrust: ProxyTrust) {
        self.proxyTrust = proxyTrust
        givenHost = nil
        givenOrigin = nil
    }
    /// Who is asking, once authenticated (nil on open routes and before authentication).
    var viewer: Viewer?
    /// The posted form (URL-encoded or multipart), empty when the body is not a form.
    var form = PostedForm()
    /// Why a body that claimed to be a form could not be read.
    var formError: String?
    /// A form over its page's upload limit: nothing of it was read, and `FormRefusal` answers it
    /// once the viewer (and so the page's language) is known.
    var formTooLarge = false
    /// The language of the answer: the viewer's setting on pages, else `Accept-Language`.
    var language = Language.en
    /// The texts and figures in `language`.
    var words: Localized { Localized(language: language) }
    let log: RequestLog

    init(request: HTTPRequest, requestID: String, clientAddress: String, host: String? = nil, viewer: Viewer? = nil, log: RequestLog) {
        self.request = request
        self.requestID = requestID
        self.clientAddress = clientAddress
        self.givenHost = host
        self.viewer = viewer
        self.log = log
    }

    /// A path parameter of the matched route (`{id}`), empty when absent.
    func parameter(_ name: String) -> String { request.parameters[name] ?? "" }

    /// The campaign named by the path's `{id}`; text that is no campaign id is a 404 here, so no
    /// service is asked about it.
    func campaignID() throws(AppError) -> CampaignID { try pathID { .campaign($0) } }

    /// The webhook named by the path's `{id}`, as `campaignID()`.
    func webhookID() throws(AppError) -> WebhookID { try pathID { .webhook($0) } }

    /// The segment, user or API key named by the path's `{id}`, as `campaignID()`.
    func segmentID() throws(AppError) -> SegmentID { try pathID { _ in .segment } }
    func userID() throws(AppError) -> UserID { try pathID { .user($0) } }
    func apiKeyID() throws(AppError) -> APIKeyID { try pathID { .apiKey($0) } }

    /// The journey named by the path's `{id}`, as `campaignID()`.
    func journeyID() throws(AppError) -> JourneyID { try pathID { .journey($0) } }

    /// The one-call send (its run) named by the path's `{id}`, as `campaignID()`.
    func sendID() throws(AppError) -> RunID { try pathID { .send($0) } }

    private func pathID<ID: UUIDIdentifier>(_ missing: (String) -> Missing) throws(AppError) -> ID {
        let text = parameter("id")
        guard let id = ID(text) else { throw .notFound(missing(text)) }
        return id
    }

    /// The absolute URL of one of Herald's own paths, as the client (and its devices) reach it.
    func publicURL(_ path: String) -> String { origin + path }

    /// The first value of a query parameter.
    func query(_ name: String) -> String? { request.queryItems.first { $0.name == name }?.value }

    /// The signed-in viewer acting from the client's address (for the audit log and attribution).
    var actor: Actor {
        guard let viewer else { return Actor(name: "anonymous", address: clientAddress) }
        return viewer.actor(address: clientAddress)
    }

    /// The body a part at a time, nil at its end: as it arrives on a route that streams it, else
    /// whole in one part.
    func bodyParts() -> () throws -> [UInt8]? {
        if let stream = request.bodyStream { return { try stream.next() } }
        var body: [UInt8]? = request.body
        return {
            defer { body = nil }
            return body
        }
    }

    /// The body parsed as JSON, after checking that it claims to be JSON.
    func jsonBody(accepting mediaTypes: [String] = ["application/json"]) throws(Problem) -> JSON {
        let contentType = request.mediaType
        guard let contentType, mediaTypes.contains(contentType) else {
            throw Problem.unsupportedMediaType(mediaTypes.joined(separator: " or "), words)
        }
        let json: JSON
        do {
            json = try JSON.parse(request.body)
        } catch {
            throw Problem.malformedJSON(line: error.line, column: error.column, reason: error.reason)
        }
        if let path = json.pathOfNUL() {
            throw Problem.validation(ValidationErrors(errors: [.nulCharacter(at: path)]), title: "The request is not valid", words)
        }
        return json
    }
}

/// The process log with this request's id on every line, so a request's error line and its
/// access line can be found together.
struct RequestLog: Sendable {
    let log: Log
    let requestID: String
    let method: String
    let path: String

    func info(_ message: String, _ fields: JSONObject = [:]) { log.info(message, stamped(fields)) }
    func warning(_ message: String, _ fields: JSONObject = [:]) { log.warning(message, stamped(fields)) }
    func error(_ message: String, _ fields: JSONObject = [:]) { log.error(message, stamped(fields)) }

    func stamped(_ fields: JSONObject) -> JSONObject {
        var fields = fields
        fields["request_id"] = .string(requestID)
        fields["method"] = .string(method)
        fields["path"] = .string(path)
        return fields
    }
}
