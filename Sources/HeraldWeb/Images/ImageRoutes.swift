import HeraldApp
import HeraldHTTP

/// `GET /images/<sha256>.<png|jpg|gif>`: uploaded images, public (devices fetch them) and
/// immutable (the name is the content's hash), so they may be cached for a year.
struct ImageRoutes: Sendable {
    let images: ImageService

    func serve(_ context: RequestContext) throws -> HTTPResponse {
        let words = context.words
        let file = context.parameter("file")
        guard let (bytes, kind) = try images.load(fileName: file) else {
            return Problem.notFound(.file("/images/\(file)"), words).httpResponse(words)
        }
        var headers = HTTPHeaders()
        headers.add("Content-Type", kind.contentType)
        headers.add("X-Content-Type-Options", "nosniff")
        headers.add("Cache-Control", "public, max-age=31536000, immutable")
        headers.add("Content-Security-Policy", "default-src 'none'")
        return HTTPResponse(status: 200, headers: headers, body: bytes)
    }
}
