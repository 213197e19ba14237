/// A parsed route pattern such as `/api/v1/campaigns/{id}/preview` or `/static/{path...}`.
struct RoutePattern: Sendable {
    enum Segment: Sendable, Equatable {
        /// Must equal the path segment exactly (still percent-encoded, as sent).
        case literal(Substring)
        /// Matches any one non-empty segment; its decoded value is the parameter.
        case parameter(String)
        /// `{name...}`, last only: matches the rest of the path, possibly empty.
        case wildcard(String)
    }

    let text: String
    let segments: [Segment]

    init(_ text: String) {
        precondition(text.hasPrefix("/"), "a route pattern starts with '/': \(text)")
        self.text = text
        let parts = text.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        segments = parts.enumerated().map { index, part in
            if part.hasPrefix("{") && part.hasSuffix("...}") {
                precondition(index == parts.count - 1, "a {name...} wildcard must be the last segment: \(text)")
                return .wildcard(String(part.dropFirst().dropLast(4)))
            }
            if part.hasPrefix("{") && part.hasSuffix("}") { return .parameter(String(part.dropFirst().dropLast())) }
            return .literal(part)
        }
    }

    /// The parameters when `pathSegments` match, else nil.
    func match(_ pathSegments: [Substring]) -> [String: String]? {
        var parameters: [String: String] = [:]
        for (index, segment) in segments.enumerated() {
            switch segment {
            case .wildcard(let name):
                let rest = pathSegments[min(index, pathSegments.count)...]
                parameters[name] = rest.map { Self.decode($0) }.joined(separator: "/")
                return parameters
            case .literal(let literal):
                guard index < pathSegments.count, pathSegments[index] == literal else { return nil }
            case .parameter(let name):
                guard index < pathSegments.count, !pathSegments[index].isEmpty else { return nil }
                parameters[name] = Self.decode(pathSegments[index])
            }
        }
        return segments.count == pathSegments.count ? parameters : nil
    }

    /// Orders overlapping patterns: at the first difference a literal beats a parameter, which
    /// beats a wildcard, so `/campaigns/new` wins over `/campaigns/{id}` whatever the order added.
    var specificity: [Int] {
        segments.map { segment in
            switch segment {
            case .literal: 2
            case .parameter: 1
            case .wildcard: 0
            }
        }
    }

    static func decode(_ segment: Substring) -> String {
        HTTPRequest.decodeComponent(ArraySlice(segment.utf8), plusIsSpace: false)
    }

    /// The segments of a request path, without the leading slash.
    static func split(_ path: String) -> [Substring] {
        path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
    }
}
