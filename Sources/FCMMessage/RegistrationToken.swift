import HeraldJSON

/// The shape of an FCM registration token: one piece of letters, digits, `-`, `_` and `:`, at
/// most 4096 bytes. Checked before anything is sent or stored, so a mistyped token ("bad token
/// with spaces") is one clear error instead of four failed sends.
public enum RegistrationToken {
    /// Longer than any token FCM issues, and more than a push request could carry.
    public static let maximumBytes = 4096

    /// What is wrong with `token`'s shape ("holds a space"), or nil when it is shaped right.
    public static func problem(_ token: String) -> String? {
        if token.isEmpty { return "is empty" }
        if token.utf8.count > maximumBytes { return "is longer than \(maximumBytes) bytes" }
        if let bad = token.unicodeScalars.first(where: { !isTokenScalar($0) }) {
            return bad.properties.isWhitespace ? "holds a space" : "holds \"\(bad)\""
        }
        return nil
    }

    /// Every token of a list that is not shaped like a registration token, at `path[index]`, naming
    /// its line (1-based) as a one-token-per-line field counts them.
    public static func errors(_ tokens: [String], at path: String) -> [JSONIssue] {
        tokens.enumerated().compactMap { index, token in
            problem(token).map { problem in
                JSONIssue(path: JSONReader.path(path, index: index), code: "invalid_token",
                           message: "the token on line \(index + 1) \(problem); a registration token is one piece of letters, digits, -, _ and : only")
            }
        }
    }

    public static func isTokenScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", "-", "_", ":": true
        default: false
        }
    }
}
