import HeraldApp

/// The HTTP server and what the web module needs to answer correctly behind a proxy.
public struct WebSettings: Sendable, Equatable {
    public var host: String
    public var port: Int
    /// Folder of static files served under /static and the OpenAPI document.
    public var publicDirectory: String
    public var handlerThreads: Int
    /// Threads of their own for the routes doing short database work; nil: two per core.
    public var quickHandlerThreads: Int?
    /// Requests waiting for a handler beyond this get 503 with Retry-After.
    public var handlerQueueLimit: Int
    public var eventLoops: Int?
    public var maxBodyBytes: Int
    /// Largest device import (CSV or NDJSON) over the API or the devices page; these bodies are
    /// read as they arrive, never held whole.
    public var maxImportBytes: Int
    /// Whether the session cookie is marked `Secure` (turn on when served over TLS, e.g. behind a TLS proxy).
    public var cookieSecure: Bool
    /// Whether the client's address is the last `X-Forwarded-For` entry and its host
    /// `X-Forwarded-Host` (behind a proxy that sets them, like deploy/nginx) rather than the peer's
    /// and `Host`. Only turn on when no one can reach Herald directly.
    public var trustForwardedFor: Bool
    /// The address devices and browsers reach Herald at (`https://herald.example.com`, no trailing
    /// slash), for the absolute URLs Herald hands out (uploaded images); nil: from each request.
    public var publicURL: String?

    /// Reads the server's settings; a value that cannot be used names its variable.
    public init(environment: [String: String]) throws(ConfigurationError) {
        let read = EnvironmentReader(environment)
        host = read.string("HERALD_HOST", "127.0.0.1")
        port = try read.integer("HERALD_PORT", 8080, 0...65535)
        publicDirectory = read.string("HERALD_PUBLIC_DIR", "Public")
        handlerThreads = try read.integer("HERALD_HANDLER_THREADS", 16, 1...1024)
        quickHandlerThreads = try read.integerIfSet("HERALD_QUICK_HANDLER_THREADS", 0...1024)
        handlerQueueLimit = try read.integer("HERALD_HANDLER_QUEUE_LIMIT", 1024, 1...1_000_000)
        eventLoops = try read.integerIfSet("HERALD_EVENT_LOOPS", 1...256)
        maxBodyBytes = try read.integer("HERALD_MAX_BODY_BYTES", 1 << 20, 1024...(64 << 20))
        maxImportBytes = try read.integer("HERALD_MAX_IMPORT_BYTES", 1 << 30, (1 << 20)...(1 << 40))
        cookieSecure = try read.boolean("HERALD_COOKIE_SECURE", false)
        trustForwardedFor = try read.boolean("HERALD_TRUST_FORWARDED_FOR", false)
        publicURL = try Self.publicURL(read, "HERALD_PUBLIC_URL")
    }

    /// An absolute http(s) address without a path's trailing slash, query or fragment.
    static func publicURL(_ read: EnvironmentReader, _ name: String) throws(ConfigurationError) -> String? {
        guard let text = read.optional(name) else { return nil }
        let trimmed = text.hasSuffix("/") ? String(text.dropLast()) : text
        let lowered = trimmed.lowercased()
        let rest = lowered.hasPrefix("https://") ? lowered.dropFirst(8) : lowered.hasPrefix("http://") ? lowered.dropFirst(7) : nil
        guard let rest, !rest.isEmpty, !rest.hasPrefix("/"), !rest.contains(where: { $0.isWhitespace || $0 == "?" || $0 == "#" }) else {
            throw ConfigurationError(variable: name, value: text, expected: "an http:// or https:// address such as https://herald.example.com")
        }
        return trimmed
    }
}
