import HeraldHTTP

/// A posted HTML form, URL-encoded or `multipart/form-data` (the composer, for its image upload).
struct PostedForm: Sendable {
    /// An uploaded file may be somewhat over the image limit, so the form can say by how much.
    static let maximumPartBytes = 2 * 1024 * 1024

    var fields: [(name: String, value: String)]
    var files: [MultipartFormData.Part]

    init(_ request: HTTPRequest) throws {
        let contentType = request.headers["Content-Type"] ?? ""
        if let boundary = MultipartFormData.boundary(contentType: contentType) {
            let form = try MultipartFormData.parse(request.body, boundary: boundary, maxPartBytes: Self.maximumPartBytes)
            fields = form.parts.filter { $0.filename == nil }.map { ($0.name, $0.text) }
            files = form.parts.filter { $0.filename != nil && !$0.body.isEmpty }
        } else {
            fields = HTTPRequest.decodeForm(request.body)
            files = []
        }
    }

    func value(_ name: String) -> String? { fields.last { $0.name == name }?.value }
    func file(_ name: String) -> MultipartFormData.Part? { files.first { $0.name == name } }
}
