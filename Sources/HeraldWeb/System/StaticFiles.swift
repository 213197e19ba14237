#if canImport(Glibc)
import Glibc
#endif
import HeraldHTTP

/// Files of `Public/` under `/static/…`. Names are checked before the file system sees them, so a
/// request cannot climb out of the folder.
struct StaticFiles: Sendable {
    let directory: String

    static let contentTypes: [String: String] = [
        "css": "text/css; charset=utf-8", "js": "text/javascript; charset=utf-8", "json": "application/json",
        "html": "text/html; charset=utf-8", "svg": "image/svg+xml", "png": "image/png", "jpg": "image/jpeg",
        "jpeg": "image/jpeg", "gif": "image/gif", "ico": "image/x-icon", "txt": "text/plain; charset=utf-8",
        "woff2": "font/woff2", "yaml": "application/yaml",
    ]

    func staticFile(_ context: RequestContext) -> HTTPResponse {
        serve(relativePath: context.parameter("path"), cacheSeconds: 3600, words: context.words)
    }

    func openAPIDocument(_ context: RequestContext) -> HTTPResponse {
        serve(relativePath: "openapi.json", cacheSeconds: 60, words: context.words)
    }

    func serve(relativePath: String, cacheSeconds: Int, words: Localized) -> HTTPResponse {
        let segments = relativePath.split(separator: "/", omittingEmptySubsequences: false)
        let safe = !segments.isEmpty && segments.allSatisfy { segment in
            !segment.isEmpty && !segment.hasPrefix(".") && segment.allSatisfy { $0.isLetter || $0.isNumber || "-_.".contains($0) }
        }
        guard safe, let bytes = Self.read("\(directory)/\(relativePath)") else {
            return Problem.notFound(.file("/static/\(relativePath)"), words).httpResponse(words)
        }
        let ext = relativePath.split(separator: ".").last.map { String($0).lowercased() } ?? ""
        var headers = HTTPHeaders()
        headers.add("Content-Type", Self.contentTypes[ext] ?? "application/octet-stream")
        headers.add("Cache-Control", "public, max-age=\(cacheSeconds)")
        headers.add("X-Content-Type-Options", "nosniff")
        return HTTPResponse(status: 200, headers: headers, body: bytes)
    }

    /// The whole file, or nil when it is missing or not a regular file.
    static func read(_ path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return nil }
            offset += count
        }
        return bytes
    }
}
