import HeraldHTTP
import HeraldPostgres

/// `GET /images/<sha256>.<png|jpg|gif>`: uploaded images, public (devices fetch them) and
/// immutable (the name is the content's hash), so they may be cached for a year.
struct ImageRoutes: Sendable {
    let pool: PostgresPool
    let log: Log
    let images = ImageStore()

    func register(on router: inout Router, open: (@escaping HTTPHandler) -> HTTPHandler) {
        router.add(.get, "/images/{file}", open(serve))
    }

    func serve(_ request: HTTPRequest) -> HTTPResponse {
        let file = request.parameters["file"] ?? ""
        let pieces = file.split(separator: ".", omittingEmptySubsequences: false)
        guard pieces.count == 2, let kind = ImageInspector.Kind(fileExtension: String(pieces[1])) else {
            return HTTPResponse(status: 404, text: "No image named \(file)\n")
        }
        do {
            guard let bytes = try pool.withConnection({ try images.load(sha256: String(pieces[0]), kind: kind, on: $0) }) else {
                return HTTPResponse(status: 404, text: "No image named \(file)\n")
            }
            var headers = HTTPHeaders()
            headers.add("Content-Type", kind.contentType)
            headers.add("X-Content-Type-Options", "nosniff")
            headers.add("Cache-Control", "public, max-age=31536000, immutable")
            headers.add("Content-Security-Policy", "default-src 'none'")
            return HTTPResponse(status: 200, headers: headers, body: bytes)
        } catch {
            log.error("image read failed: \(error)", request: request)
            return HTTPResponse(status: 503, text: "The image store is unavailable; try again.\n")
        }
    }
}
