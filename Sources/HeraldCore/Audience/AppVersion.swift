/// App versions in the order people read them: 5.10 comes after 5.9, and 5.2 equals 5.2.0.
public enum AppVersion {
    /// The numeric parts of `version` with trailing zeros dropped ("5.2.0-beta" → [5, 2]), which
    /// compare part by part (PostgreSQL orders `integer[]` the same way); nil when it does not start
    /// with a number.
    public static func key(_ version: String) -> [Int]? {
        var parts: [Int] = []
        for piece in version.split(separator: ".", omittingEmptySubsequences: false) {
            let digits = piece.prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, digits.count <= 9, let number = Int(digits) else { break }
            parts.append(number)
            if digits.count < piece.count { break }  // "1-beta": the suffix ends the numbers
        }
        guard !parts.isEmpty, parts.count <= 8 else { return nil }
        while parts.count > 1, parts.last == 0 { parts.removeLast() }
        return parts
    }

    /// Whether `version` is at least `minimum`; an unreadable version is never at least anything.
    public static func isAtLeast(_ version: String, _ minimum: String) -> Bool {
        guard let lhs = key(version), let rhs = key(minimum) else { return false }
        return !lhs.lexicographicallyPrecedes(rhs)
    }
}
