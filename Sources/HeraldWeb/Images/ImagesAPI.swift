import HeraldApp
import HeraldCore
import HeraldJSON

/// `POST /api/v1/images`: the browser's image upload for API clients, with the same checks and
/// limits (`ImageService`). The image comes as the `file` part of multipart/form-data or as the
/// whole body with an image content type; the answer is the URL to put in a campaign.
struct ImagesAPI: Sendable {
    let images: ImageService

    static let rawMediaTypes: Set<String> = ["image/png", "image/jpeg", "image/gif"]
    static let field = "file"

    static let defaultPage = 50, maximumPage = 200

    /// `GET /api/v1/images`: the uploaded images, newest first, a page at a time (`limit`, `cursor`).
    func list(_ context: RequestContext) throws -> APIResponse {
        let words = context.words
        let (limit, cursor) = try context.pageQuery(defaultLimit: Self.defaultPage, maximumLimit: Self.maximumPage) { $0.utf8.count == 64 ? $0 : nil }
        guard let page = try images.list(after: cursor, limit: limit) else {
            throw Problem.invalidQuery([FieldError(path: "cursor", code: "invalid_cursor", message: "cursor must be a next_cursor value from a previous page")], words)
        }
        return APIResponse(status: 200, body: [
            "items": .array(page.map { image in
                var json = Self.json(image.stored, bytes: image.bytes, url: context.publicURL(image.stored.path))
                json["uploaded_by"] = image.uploadedBy.map(JSON.string) ?? .null
                json["created_at"] = .time(image.createdAt)
                return .object(json)
            }),
            "next_cursor": page.count == limit ? page.last.map { .string($0.stored.sha256) } ?? .null : .null,
        ])
    }

    /// An image as the API gives it.
    static func json(_ stored: StoredImage, bytes: Int, url: String) -> JSONObject {
        ["url": .string(url), "path": .string(stored.path), "sha256": .string(stored.sha256),
         "content_type": .string(stored.kind.contentType), "bytes": .number(Double(bytes)),
         "width": .number(Double(stored.width)), "height": .number(Double(stored.height))]
    }

    func upload(_ context: RequestContext) throws -> APIResponse {
        let words = context.words
        if let problem = context.formError {
            throw Problem.badRequest(code: "malformed_multipart", "The multipart body could not be read: \(problem).")
        }
        let media = context.request.mediaType ?? ""
        let bytes: [UInt8]
        if media == "multipart/form-data" {
            guard let file = context.form.file(Self.field) else {
                throw AppError.invalidField(Self.field, "send the image as the multipart part named \"\(Self.field)\" (with a filename)",
                                            code: "required", title: "The image was refused")
            }
            bytes = file.body
        } else if Self.rawMediaTypes.contains(media) {
            bytes = context.request.body
        } else {
            throw Problem.unsupportedMediaType("multipart/form-data with a \"\(Self.field)\" part, or the image itself as image/png, image/jpeg or image/gif", words)
        }
        let stored = try images.upload(bytes, by: context.actor, field: Self.field)
        let url = context.publicURL(stored.path)
        return APIResponse(status: 201, body: .object(Self.json(stored, bytes: bytes.count, url: url)), headers: [("Location", url)])
    }
}
