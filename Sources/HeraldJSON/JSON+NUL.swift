extension JSON {
    /// Where this value holds U+0000 in a string or a key, as a field path below `path`; nil when
    /// nowhere. PostgreSQL refuses it in text, and no push notification, name or device needs it.
    public func pathOfNUL(at path: String = "") -> String? {
        // The paths are spelled out only on the way to a NUL: every document is checked (each
        // imported device), and almost none has one.
        guard containsNUL else { return nil }
        switch self {
        case .string:
            return path
        case .array(let items):
            for (index, item) in items.enumerated() where item.containsNUL {
                return item.pathOfNUL(at: "\(path)[\(index)]")
            }
        case .object(let object):
            for (key, member) in object {
                if Self.holdsNUL(key) { return path }
                if member.containsNUL { return member.pathOfNUL(at: path.isEmpty ? key : "\(path).\(key)") }
            }
        default:
            break
        }
        return nil
    }

    var containsNUL: Bool {
        switch self {
        case .string(let text): Self.holdsNUL(text)
        case .array(let items): items.contains { $0.containsNUL }
        case .object(let object): object.contains { Self.holdsNUL($0.key) || $0.value.containsNUL }
        default: false
        }
    }

    static func holdsNUL(_ text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { $0.contains(0) } ?? text.utf8.contains(0)
    }
}

extension JSONIssue {
    /// U+0000 at `path` (as `JSON.pathOfNUL` finds it); "" is a key of the document.
    public static func nulCharacter(at path: String) -> JSONIssue {
        JSONIssue(path: path, code: "nul_character", message: "\(path.isEmpty ? "a key" : path) contains the NUL character (U+0000), which no text may hold")
    }
}
