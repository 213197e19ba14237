/// A JSON value. Objects keep their keys in the order they were written, so what Herald renders
/// reads like the documentation it follows; equality ignores that order.
public enum JSON: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSON])
    case object(JSONObject)
}

extension JSON {
    /// The string, if this is a string.
    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    /// The boolean, if this is a boolean.
    public var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }
    /// The number, if this is a number.
    public var doubleValue: Double? { if case .number(let n) = self { n } else { nil } }
    /// The number, if this is a number that is a whole number representable as `Int`.
    public var intValue: Int? {
        guard case .number(let n) = self, n.rounded() == n, abs(n) <= 9_007_199_254_740_992 else { return nil }
        return Int(n)
    }
    /// The elements, if this is an array.
    public var arrayValue: [JSON]? { if case .array(let a) = self { a } else { nil } }
    /// The members, if this is an object.
    public var objectValue: JSONObject? { if case .object(let o) = self { o } else { nil } }
    /// Whether this is `null`.
    public var isNull: Bool { self == .null }

    /// The member `key` of an object; nil for a missing key or a value that is not an object.
    public subscript(key: String) -> JSON? {
        objectValue?[key]
    }

    /// A word for the value's type, for error messages ("expected a string, found a number").
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

extension JSON: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSON...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSON)...) { self = .object(JSONObject(elements)) }
}

/// A JSON object: members in insertion order, looked up by key. Keys are unique.
public struct JSONObject: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    public private(set) var members: [(key: String, value: JSON)] = []

    public init() {}

    /// An object of these members; a later duplicate key replaces the earlier value in place.
    public init(_ pairs: some Sequence<(String, JSON)>) {
        // Room for every member at once: grown one by one, the member array was reallocated
        // (its tuples copied through the runtime) several times per object, and an API GET builds
        // dozens of objects (callgrind).
        members.reserveCapacity(pairs.underestimatedCount)
        for (key, value) in pairs { self[key] = value }
    }

    public init(dictionaryLiteral elements: (String, JSON)...) {
        self.init(elements)
    }

    /// An object of these members, whose keys the caller knows to be distinct (a fixed set of
    /// names): taken as they are, without looking each key up among those before it, which cost
    /// 470 instructions a member of an access line (callgrind). Checked in debug builds.
    public init(distinctKeys pairs: [(String, JSON)]) {
        members = pairs.map { (key: $0.0, value: $0.1) }
        assert(Set(members.map { Array($0.key.utf8) }).count == members.count, "duplicate keys in JSONObject(distinctKeys:)")
    }

    public var count: Int { members.count }
    public var isEmpty: Bool { members.isEmpty }

    /// Makes room for `capacity` members, for an object about to be built member by member.
    public mutating func reserveCapacity(_ capacity: Int) { members.reserveCapacity(capacity) }
    public var keys: [String] { members.map(\.key) }

    /// The value for `key`. Setting appends a new key at the end, replaces an existing one in place,
    /// and setting nil removes it. Keys are compared byte for byte, as JSON and FCM compare them:
    /// "café" composed and decomposed are two keys (Swift's `==` would call them one).
    public subscript(key: String) -> JSON? {
        get { members.first(where: { Self.sameBytes($0.key, key) })?.value }
        set {
            if let index = members.firstIndex(where: { Self.sameBytes($0.key, key) }) {
                if let newValue { members[index].value = newValue } else { members.remove(at: index) }
            } else if let newValue {
                members.append((key, newValue))
            }
        }
    }

    /// Keys are equal when their bytes are (JSON compares keys by code points, not by Unicode
    /// equivalence as `==` does). Compared over contiguous UTF-8: iterating two `UTF8View`s cost
    /// 160 instructions a key, and an object is built key by key (a tenth of an API GET's time).
    static func sameBytes(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        var a = a, b = b
        return a.withUTF8 { x in
            b.withUTF8 { y in
                for index in 0..<x.count where x[index] != y[index] { return false }
                return true
            }
        }
    }

    public func makeIterator() -> IndexingIterator<[(key: String, value: JSON)]> {
        members.makeIterator()
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return lhs.members.allSatisfy { rhs[$0.key] == $0.value }
    }

    public func hash(into hasher: inout Hasher) {
        // Order-insensitive, to agree with ==.
        var combined = 0
        for (key, value) in members {
            var member = Hasher()
            member.combine(key)
            member.combine(value)
            combined ^= member.finalize()
        }
        hasher.combine(count)
        hasher.combine(combined)
    }
}
