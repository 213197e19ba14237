extension JSON {
    /// Where this value holds U+0000 in a string or a key, as a field path below `path`; nil when
    /// nowhere. PostgreSQL refuses it in text, and no push notification, name or device needs it.
    public func pathOfNUL(at path: String = "") -> String? {
        switch self {
        case .string(let text):
            return text.utf8.contains(0) ? path : nil
        case .array(let items):
            for (index, item) in items.enumerated() {
                if let found = item.pathOfNUL(at: "\(path)[\(index)]") { return found }
            }
        case .object(let object):
            for (key, member) in object {
                if key.utf8.contains(0) { return path }
                if let found = member.pathOfNUL(at: path.isEmpty ? key : "\(path).\(key)") { return found }
            }
        default:
            break
        }
        return nil
    }
}

extension JSONIssue {
    /// U+0000 at `path` (as `JSON.pathOfNUL` finds it); "" is a key of the document.
    public static func nulCharacter(at path: String) -> JSONIssue {
        JSONIssue(path: path, code: "nul_character", message: "\(path.isEmpty ? "a key" : path) contains the NUL character (U+0000), which no text may hold")
    }
}
