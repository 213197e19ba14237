import HeraldHTTP

/// A posted HTML form, URL-encoded or `multipart/form-data` (the composer, for its image upload),
/// parsed once per request by `BodyParsing`.
struct PostedForm: Sendable {
    /// The most a form that takes an image upload (the composer's, a journey's) may carry: well
    /// over the 300 KB image limit, so that a phone's photo of a few megabytes still reaches the
    /// page, which refuses it beside its field with the rest of the form kept. Such a form over
    /// the server's body limit is read as it arrives (`Route.takingUploads`); beyond this, the
    /// page says the upload is too large.
    static let maximumUploadFormBytes = 16 * 1024 * 1024
    /// An uploaded file may be far over the image limit, so the form can say by how much.
    static let maximumPartBytes = maximumUploadFormBytes
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
