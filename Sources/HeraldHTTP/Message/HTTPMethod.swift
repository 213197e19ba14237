/// An HTTP request method (RFC 9110 §9). Methods are case-sensitive tokens; any token the parser
/// accepts is representable, the common ones have names.
public struct HTTPMethod: Sendable, Hashable, RawRepresentable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The method token exactly as sent, e.g. `"GET"`.
    public var rawValue: String

    /// Wraps a method token. No validation: the parser only produces valid tokens.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Allows `let m: HTTPMethod = "PROPFIND"`.
    public init(stringLiteral value: String) { self.rawValue = value }

    public var description: String { rawValue }

    public static let get = HTTPMethod(rawValue: "GET")
    public static let head = HTTPMethod(rawValue: "HEAD")
    public static let post = HTTPMethod(rawValue: "POST")
    public static let put = HTTPMethod(rawValue: "PUT")
    public static let patch = HTTPMethod(rawValue: "PATCH")
    public static let delete = HTTPMethod(rawValue: "DELETE")
    public static let options = HTTPMethod(rawValue: "OPTIONS")
}
