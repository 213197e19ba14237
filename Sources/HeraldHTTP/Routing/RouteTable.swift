/// Routes to values of any kind (a handler, or a web module's route with its access rule), and
/// what a request's method and path find among them. `Router` is this table over plain handlers.
///
/// Patterns are literal segments, `{name}` parameters and a final `{name...}` wildcard; matched
/// parameters are percent-decoded (a wildcard value may then contain `/` or `..`, so a file
/// handler must check it). The most specific pattern wins; HEAD finds the GET route.
public struct RouteTable<Value: Sendable>: Sendable {
    struct Entry: Sendable {
        let method: HTTPMethod
        let pattern: RoutePattern
        let value: Value
    }

    /// What a request finds.
    public enum Match {
        /// A route: its value, the path's parameters, its pattern, and whether it is the GET
        /// route answering a HEAD (drop the body, keep its length).
        case found(Value, parameters: [String: String], pattern: String, headForGet: Bool)
        /// Routes match the path under these other methods only (answer 405 with `Allow`).
        case methodNotAllowed([HTTPMethod])
        /// No route matches the path.
        case notFound
    }

    private var entries: [Entry] = []

    public init() {}

    /// Adds a route. Of two routes with the same method and pattern, the first wins.
    public mutating func add(_ method: HTTPMethod, _ pattern: String, _ value: Value) {
        entries.append(Entry(method: method, pattern: RoutePattern(pattern), value: value))
    }

    /// Every route, in the order added (for tests that walk them all).
    public var routes: [(method: HTTPMethod, pattern: String, value: Value)] { entries.map { ($0.method, $0.pattern.text, $0.value) } }

    public func match(_ method: HTTPMethod, path: String) -> Match {
        let segments = RoutePattern.split(path)
        var best: (entry: Entry, parameters: [String: String])?
        var bestForGet: (entry: Entry, parameters: [String: String])?
        var allowed: [HTTPMethod] = []
        for entry in entries {
            guard let parameters = entry.pattern.match(segments) else { continue }
            if !allowed.contains(entry.method) { allowed.append(entry.method) }
            if entry.method == method && isBetter(entry, than: best?.entry) { best = (entry, parameters) }
            if entry.method == .get && isBetter(entry, than: bestForGet?.entry) { bestForGet = (entry, parameters) }
        }
        if let best { return .found(best.entry.value, parameters: best.parameters, pattern: best.entry.pattern.text, headForGet: false) }
        if method == .head, let get = bestForGet {
            return .found(get.entry.value, parameters: get.parameters, pattern: get.entry.pattern.text, headForGet: true)
        }
        if allowed.isEmpty { return .notFound }
        if allowed.contains(.get) && !allowed.contains(.head) { allowed.append(.head) }
        return .methodNotAllowed(allowed)
    }

    private func isBetter(_ entry: Entry, than current: Entry?) -> Bool {
        guard let current else { return true }
        return entry.pattern.specificity.lexicographicallyPrecedes(current.pattern.specificity) == false
            && entry.pattern.specificity != current.pattern.specificity
    }
}

extension HTTPResponse {
    /// The GET answer made a HEAD answer (RFC 9110 §9.3.2): no body, the body's length kept.
    public mutating func dropBodyForHead() {
        headers.set("Content-Length", String(body.count))
        body = []
    }
}
