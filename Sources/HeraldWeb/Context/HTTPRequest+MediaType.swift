import HeraldHTTP

extension HTTPRequest {
    /// The body's media type from `Content-Type`, lowercased and without parameters
    /// (`text/csv; charset=utf-8` → `text/csv`); nil when the header is absent.
    var mediaType: String? {
        headers["Content-Type"]?.split(separator: ";").first.map { $0.trimmingSpaces.lowercased() }
    }
}
