extension JSON {
    /// One encoding per value: compact, every object's members ordered by their keys' UTF-8
    /// bytes, at every depth. Two documents that differ only in white space or member order (JSON
    /// objects are unordered) encode the same, so a hash of this says whether two requests are
    /// the same value.
    public func canonicalSerialized() -> [UInt8] {
        sortingKeys().serialized()
    }

    func sortingKeys() -> JSON {
        switch self {
        case .array(let elements): .array(elements.map { $0.sortingKeys() })
        case .object(let object):
            .object(JSONObject(object.members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }.map { ($0.key, $0.value.sortingKeys()) }))
        default: self
        }
    }
}
