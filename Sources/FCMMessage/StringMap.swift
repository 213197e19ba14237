/// FCM's `map<string, string>` (message `data`, `apns.headers`, `webpush.headers`): string keys and
/// values, kept in the order they were written so rendered requests read as composed. Equality
/// ignores the order, as JSON objects do.
public struct StringMap: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    public private(set) var pairs: [(key: String, value: String)] = []

    public init() {}

    /// A map of these pairs; a later duplicate key replaces the earlier value in place.
    public init(_ pairs: some Sequence<(key: String, value: String)>) {
        for pair in pairs { self[pair.key] = pair.value }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        for (key, value) in elements { self[key] = value }
    }

    public var count: Int { pairs.count }
    public var isEmpty: Bool { pairs.isEmpty }
    public var keys: [String] { pairs.map(\.key) }

    /// The value for `key`. Setting appends a new key, replaces an existing one in place, and
    /// setting nil removes it. Keys are compared byte for byte, as FCM does (see `JSONObject`).
    public subscript(key: String) -> String? {
        get { pairs.first(where: { $0.key.utf8.elementsEqual(key.utf8) })?.value }
        set {
            if let index = pairs.firstIndex(where: { $0.key.utf8.elementsEqual(key.utf8) }) {
                if let newValue { pairs[index].value = newValue } else { pairs.remove(at: index) }
            } else if let newValue {
                pairs.append((key, newValue))
            }
        }
    }

    /// This map with `other`'s pairs set over it (other wins).
    public func merging(_ other: StringMap) -> StringMap {
        var result = self
        for (key, value) in other { result[key] = value }
        return result
    }

    public func makeIterator() -> IndexingIterator<[(key: String, value: String)]> {
        pairs.makeIterator()
    }

    public static func == (lhs: StringMap, rhs: StringMap) -> Bool {
        lhs.count == rhs.count && lhs.pairs.allSatisfy { rhs[$0.key] == $0.value }
    }
}
