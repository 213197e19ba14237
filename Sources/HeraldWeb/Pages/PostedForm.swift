import HeraldHTTP

/// A posted HTML form, URL-encoded or `multipart/form-data` (the composer, for its image upload),
/// parsed once per request by `BodyParsing`.
struct PostedForm: Sendable {
    /// An uploaded file may be somewhat over the image limit, so the form can say by how much.
    static let maximumPartBytes = 2 * 1024 * 1024
    /// The composer at its fullest (10 variants, each with data pairs) posts a few hundred fields;
    /// the body limit bounds the total anyway.
    static let maximumParts = 2000

    var fields: [(name: String, value: String)] = []
    var files: [MultipartFormData.Part] = []

    init() {}

    /// The form of `request`; nil when the body is not a form at all.
    init?(_ request: HTTPRequest) throws {
        // Most requests (every GET) carry no Content-Type: one look, not two, before saying so.
        guard let contentType = request.headers["Content-Type"] else { return nil }
        let media = request.mediaType ?? ""
        if media == "multipart/form-data" {
            guard let boundary = MultipartFormData.boundary(contentType: contentType) else {
                throw MultipartFormData.ParseError.missingBoundary
            }
            let form = try MultipartFormData.parse(request.body, boundary: boundary, maxParts: Self.maximumParts, maxPartBytes: Self.maximumPartBytes)
            fields = form.parts.filter { $0.filename == nil }.map { ($0.name, $0.text) }
            files = form.parts.filter { $0.filename != nil && !$0.body.isEmpty }
        } else if media == "application/x-www-form-urlencoded" {
            fields = HTTPRequest.decodeForm(request.body)
        } else {
            return nil
        }
    }

    /// Whether the request's body is a form (URL-encoded or multipart), which is parsed before
    /// its handler runs.
    static func isForm(_ request: HTTPRequest) -> Bool {
        ["multipart/form-data", "application/x-www-form-urlencoded"].contains(request.mediaType)
    }

    /// The value of a field; the last wins when a name repeats (a checkbox after its hidden default).
    func value(_ name: String) -> String? { fields.last { $0.name == name }?.value }
    func file(_ name: String) -> MultipartFormData.Part? { files.first { $0.name == name } }
}
