/// An ordered list of header fields. Order and duplicates are kept (a duplicate `Content-Length`
/// must be seen to be refused); lookups compare names ASCII-case-insensitively (RFC 9110 §5.1).
public struct HTTPHeaders: Sendable, Sequence, Equatable, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    /// One field line: its name as sent and its value with surrounding whitespace removed.
    public typealias Element = (name: String, value: String)

    private var fields: [Element]

    /// An empty list.
    public init() { fields = [] }

    /// The given fields, in order.
    public init(_ fields: [(String, String)]) { self.fields = fields.map { (name: $0.0, value: $0.1) } }

    /// `[:]` and `["Content-Type": "text/plain"]` literals, in the order written.
    public init(dictionaryLiteral elements: (String, String)...) { self.init(elements) }

    /// The number of field lines.
    public var count: Int { fields.count }

    /// True when there is no field.
    public var isEmpty: Bool { fields.isEmpty }

    /// The first value of the named field, or nil.
    public subscript(name: String) -> String? {
        for field in fields where Self.sameName(field.name, name) { return field.value }
        return nil
    }

    /// Every value of the named field, in order.
    public func values(for name: String) -> [String] {
        fields.filter { Self.sameName($0.name, name) }.map(\.value)
    }

    /// Whether any field has this name.
    public func contains(_ name: String) -> Bool { fields.contains { Self.sameName($0.name, name) } }

    /// Appends a field, keeping any existing ones of the same name.
    public mutating func add(_ name: String, _ value: String) { fields.append((name: name, value: value)) }

    /// Replaces every field of this name by one field with this value.
    public mutating func set(_ name: String, _ value: String) {
        remove(name)
        fields.append((name: name, value: value))
    }

    /// Removes every field of this name.
    public mutating func remove(_ name: String) { fields.removeAll { Self.sameName($0.name, name) } }

    public func makeIterator() -> IndexingIterator<[Element]> { fields.makeIterator() }

    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.count == rhs.fields.count
            && zip(lhs.fields, rhs.fields).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }

    public var description: String { fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n") }

    /// ASCII case-insensitive comparison of field names, without allocating.
    static func sameName(_ a: String, _ b: String) -> Bool {
        var left = a.utf8.makeIterator()
        var right = b.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return true
            case let (x?, y?) where asciiLower(x) == asciiLower(y): continue
            default: return false
            }
        }
    }

    @inline(__always) static func asciiLower(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }
}
