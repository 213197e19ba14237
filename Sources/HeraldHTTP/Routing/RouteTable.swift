/// Routes to values of any kind (a handler, or a web module's route with its access rule), and
/// what a request's method and path find among them. `Router` is this table over plain handlers.
///
/// Patterns are literal segments, `{name}` parameters and a final `{name...}` wildcard; matched
/// parameters are percent-decoded (a wildcard value may then contain `/` or `..`, so a file
/// handler must check it). The most specific pattern wins; HEAD finds the GET route.
///
/// The patterns are kept as a trie of segments, so a request walks only the branches its own
/// segments lead to instead of trying every route: the cost of a lookup grows with the depth of
/// the path, not with the number of routes.
public struct RouteTable<Value: Sendable>: Sendable {
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

    // The matching itself is not generic, so it does not instantiate generic metadata on each
    // request; `match` is inlinable so that the table's own module specializes the little that is.
    @usableFromInline var trie = RouteTrie()
    @usableFromInline var values: [Value] = []

    public init() {}

    /// Adds a route. Of two routes with the same method and pattern, the first wins.
    public mutating func add(_ method: HTTPMethod, _ pattern: String, _ value: Value) {
        trie.add(method, RoutePattern(pattern))
        values.append(value)
    }

    /// Every route, in the order added (for tests that walk them all).
    public var routes: [(method: HTTPMethod, pattern: String, value: Value)] {
        values.indices.map { (trie.methods[$0], trie.patterns[$0].text, values[$0]) }
    }

    @inlinable public func match(_ method: HTTPMethod, path: String) -> Match {
        match(from: trie.lookup(method, path: path))
    }

    /// Looks the request's route up and notes what it found on the request (`routeEntry` and
    /// `parameters`), so that `match(_ request:)` on another thread finds it without a second lookup.
    @inlinable public func match(noting request: inout HTTPRequest) -> Match {
        let lookup = trie.lookup(request.method, path: request.path)
        if case .found(let entry, let parameters, _) = lookup {
            request.routeEntry = entry
            request.parameters = parameters
        }
        return match(from: lookup)
    }

    /// The request's route: the one noted on it by `match(noting:)`, else looked up.
    @inlinable public func match(_ request: HTTPRequest) -> Match {
        guard let entry = request.routeEntry, values.indices.contains(entry) else { return match(request.method, path: request.path) }
        // The entry answers another method only when it is the GET route found for a HEAD.
        return .found(values[entry], parameters: request.parameters, pattern: trie.patternText(entry),
                      headForGet: trie.method(of: entry) != request.method)
    }

    @inlinable func match(from lookup: RouteTrie.Lookup) -> Match {
        switch lookup {
        case .found(let entry, let parameters, let headForGet):
            .found(values[entry], parameters: parameters, pattern: trie.patternText(entry), headForGet: headForGet)
        case .methodNotAllowed(let allowed):
            .methodNotAllowed(allowed)
        case .notFound:
            .notFound
        }
    }
}

/// The patterns of a route table as a trie of path segments, each route known by the order it
/// was added in.
@usableFromInline struct RouteTrie: Sendable {
    /// One position in the trie. Every pattern ends at exactly one node: patterns that differ only
    /// in their parameter names end at the same one (and so have the same specificity).
    struct Node: Sendable {
        var literals: [(bytes: [UInt8], child: Int)] = []
        var parameter: Int?
        var wildcard: Int?
        /// The entries whose pattern ends here, in the order added.
        var entries: [Int] = []
        /// The specificity shared by every pattern that ends here.
        var specificity: [Int] = []
    }

    @usableFromInline enum Lookup {
        case found(entry: Int, parameters: [String: String], headForGet: Bool)
        case methodNotAllowed([HTTPMethod])
        case notFound
    }

    private(set) var methods: [HTTPMethod] = []
    private(set) var patterns: [RoutePattern] = []

    /// The pattern of an entry, as written.
    @usableFromInline func patternText(_ entry: Int) -> String { patterns[entry].text }
    /// The method of an entry.
    @usableFromInline func method(of entry: Int) -> HTTPMethod { methods[entry] }
    private var nodes: [Node] = [Node()]

    mutating func add(_ method: HTTPMethod, _ pattern: RoutePattern) {
        var node = 0
        for segment in pattern.segments {
            switch segment {
            case .literal(let bytes):
                if let existing = nodes[node].literals.first(where: { $0.bytes == bytes }) {
                    node = existing.child
                } else {
                    let child = newNode()
                    nodes[node].literals.append((bytes, child))
                    node = child
                }
            case .parameter:
                node = child(\.parameter, of: node)
            case .wildcard:
                node = child(\.wildcard, of: node)
            }
        }
        nodes[node].specificity = pattern.specificity
        nodes[node].entries.append(patterns.count)
        methods.append(method)
        patterns.append(pattern)
    }

    private mutating func newNode() -> Int {
        nodes.append(Node())
        return nodes.count - 1
    }

    /// The node's parameter or wildcard child, made when missing.
    private mutating func child(_ slot: WritableKeyPath<Node, Int?>, of node: Int) -> Int {
        if let existing = nodes[node][keyPath: slot] { return existing }
        let child = newNode()
        nodes[node][keyPath: slot] = child
        return child
    }

    @usableFromInline func lookup(_ method: HTTPMethod, path: String) -> Lookup {
        PathSegments.with(path) { segments in
            nodes.withUnsafeBufferPointer { nodes in
                var search = Search(method: method)
                visit(0, at: 0, segments, nodes, &search)
                if let best = search.best {
                    return found(best, segments, headForGet: false)
                }
                if method == .head, let get = search.bestGet {
                    return found(get, segments, headForGet: true)
                }
                guard search.matched else { return .notFound }
                // A 405 is rare: walk again, this time collecting every matching route.
                var collecting = Search(method: method, matchedEntries: [])
                visit(0, at: 0, segments, nodes, &collecting)
                var allowed: [HTTPMethod] = []
                for entry in collecting.matchedEntries!.sorted() where !allowed.contains(methods[entry]) {
                    allowed.append(methods[entry])
                }
                if allowed.contains(.get) && !allowed.contains(.head) { allowed.append(.head) }
                return .methodNotAllowed(allowed)
            }
        }
    }

    /// What a walk of the trie has found so far.
    private struct Search {
        let method: HTTPMethod
        var best: Int?
        var bestGet: Int?
        var matched = false
        /// Every entry whose pattern matches, when asked for (to list the methods of a 405).
        var matchedEntries: [Int]?
    }

    /// Visits every node whose pattern matches the path from segment `index` on, keeping the most
    /// specific entry for the method (and for GET, which answers HEAD).
    private func visit(_ node: Int, at index: Int, _ segments: PathSegments, _ nodes: UnsafeBufferPointer<Node>,
                       _ search: inout Search) {
        if index == segments.count { consider(nodes[node], &search) }
        // A wildcard takes the rest of the path, even an empty rest.
        if let wildcard = nodes[node].wildcard { consider(nodes[wildcard], &search) }
        guard index < segments.count else { return }
        let segment = segments[index]
        for literal in nodes[node].literals where literal.bytes.count == segment.count && segment.elementsEqual(literal.bytes) {
            visit(literal.child, at: index + 1, segments, nodes, &search)
        }
        if let parameter = nodes[node].parameter, !segment.isEmpty { visit(parameter, at: index + 1, segments, nodes, &search) }
    }

    /// Keeps the node's entry for the method when its pattern is more specific than the best so
    /// far. Entries of one node share their specificity, so the first added among them wins, as
    /// it would in a scan of the routes in order.
    private func consider(_ candidate: Node, _ search: inout Search) {
        guard !candidate.entries.isEmpty else { return }
        search.matched = true
        search.matchedEntries?.append(contentsOf: candidate.entries)
        if let entry = candidate.entries.first(where: { methods[$0] == search.method }),
           isBetter(candidate, than: search.best) {
            search.best = entry
        }
        if search.method == .head, let entry = candidate.entries.first(where: { methods[$0] == .get }),
           isBetter(candidate, than: search.bestGet) {
            search.bestGet = entry
        }
    }

    /// Strictly more specific: at the first difference a literal beats a parameter beats a
    /// wildcard, and a pattern that goes on where the other has ended beats it.
    private func isBetter(_ candidate: Node, than current: Int?) -> Bool {
        guard let current else { return true }
        let other = patterns[current].specificity
        return candidate.specificity != other && !candidate.specificity.lexicographicallyPrecedes(other)
    }

    private func found(_ entry: Int, _ segments: PathSegments, headForGet: Bool) -> Lookup {
        // The trie has matched the shape already; this reads the parameters out by name.
        .found(entry: entry, parameters: patterns[entry].match(segments) ?? [:], headForGet: headForGet)
    }
}

extension HTTPResponse {
    /// The GET answer made a HEAD answer (RFC 9110 §9.3.2): no body, the body's length kept.
    public mutating func dropBodyForHead() {
        headers.set("Content-Length", String(body.count))
        body = []
    }
}
