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

    func upload(_ context: RequestContext) throws -> APIResponse {
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
            throw Problem.unsupportedMediaType("multipart/form-data with a \"\(Self.field)\" part, or the image itself as image/png, image/jpeg or image/gif")
        }
        let stored = try images.upload(bytes, by: context.actor, field: Self.field)
        let url = context.publicURL(stored.path)
        return APIResponse(status: 201, body: [
            "url": .string(url), "path": .string(stored.path), "sha256": .string(stored.sha256),
            "content_type": .string(stored.kind.contentType), "bytes": .number(Double(bytes.count)),
            "width": .number(Double(stored.width)), "height": .number(Double(stored.height)),
        ], headers: [("Location", url)])
    }
}
