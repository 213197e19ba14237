/// A parsed route pattern such as `/api/v1/campaigns/{id}/preview` or `/static/{path...}`.
struct RoutePattern: Sendable {
    enum Segment: Sendable, Equatable {
        /// Must equal the path segment exactly (still percent-encoded, as sent), byte for byte.
        case literal([UInt8])
        /// Matches any one non-empty segment; its decoded value is the parameter.
        case parameter(String)
        /// `{name...}`, last only: matches the rest of the path, possibly empty.
        case wildcard(String)
    }

    let text: String
    let segments: [Segment]
    /// Orders overlapping patterns: at the first difference a literal beats a parameter, which
    /// beats a wildcard, so `/campaigns/new` wins over `/campaigns/{id}` whatever the order added.
    /// Computed once: the router compares it on every request that several patterns match.
    let specificity: [Int]

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
            return .literal(Array(part.utf8))
        }
        specificity = segments.map { segment in
            switch segment {
            case .literal: 2
            case .parameter: 1
            case .wildcard: 0
            }
        }
    }

    /// The parameters when `path` matches, else nil.
    func match(_ path: PathSegments) -> [String: String]? {
        var parameters: [String: String] = [:]
        for (index, segment) in segments.enumerated() {
            switch segment {
            case .wildcard(let name):
                var value = ""
                for rest in min(index, path.count)..<path.count {
                    if rest > index { value += "/" }
                    value += HTTPRequest.decodeComponent(path[rest], plusIsSpace: false)
                }
                parameters[name] = value
                return parameters
            case .literal(let literal):
                guard index < path.count, path[index].elementsEqual(literal) else { return nil }
            case .parameter(let name):
                guard index < path.count, !path[index].isEmpty else { return nil }
                parameters[name] = HTTPRequest.decodeComponent(path[index], plusIsSpace: false)
            }
        }
        return segments.count == path.count ? parameters : nil
    }
}

/// The segments of a request path without its first byte (the leading slash), split on every `/`
/// (empty segments kept), as ranges of the path's UTF-8 bytes: matching a route splits the path
/// once and allocates nothing for it.
struct PathSegments {
    let bytes: UnsafeBufferPointer<UInt8>
    private let ranges: UnsafeMutableBufferPointer<Range<Int>>

    var count: Int { ranges.count }

    subscript(index: Int) -> Slice<UnsafeBufferPointer<UInt8>> { bytes[ranges[index]] }

    /// Calls `body` with the segments of `path`; they are valid only during the call.
    static func with<R>(_ path: String, _ body: (PathSegments) -> R) -> R {
        var path = path
        return path.withUTF8 { utf8 in
            let start = min(1, utf8.count)
            var count = 1
            for byte in utf8[start...] where byte == UInt8(ascii: "/") { count += 1 }
            return withUnsafeTemporaryAllocation(of: Range<Int>.self, capacity: count) { ranges in
                var segmentStart = start
                var index = 0
                for position in start..<utf8.count where utf8[position] == UInt8(ascii: "/") {
                    ranges.initializeElement(at: index, to: segmentStart..<position)
                    index += 1
                    segmentStart = position + 1
                }
                ranges.initializeElement(at: index, to: segmentStart..<utf8.count)
                return body(PathSegments(bytes: utf8, ranges: ranges))
            }
        }
    }
}
