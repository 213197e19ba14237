/// App versions in the order people read them: 5.10 comes after 5.9, and 5.2 equals 5.2.0.
public enum AppVersion {
    /// The digits of one number of a version: 9 fit PostgreSQL's `integer`, which the registry
    /// compares versions in. A longer number is refused rather than cut (5.2147483648 read as 5).
    public static let maximumDigits = 9
    public static let maximumNumbers = 8

    /// The numeric parts of `version` with trailing zeros dropped ("5.2.0-beta" → [5, 2]), which
    /// compare part by part (PostgreSQL orders `integer[]` the same way); nil when it is unreadable
    /// (`problem` says why).
    public static func key(_ version: String) -> [Int]? {
        try? read(version).get()
    }

    /// Why `version` is not an app version (a sentence naming the limit it passes), or nil.
    public static func problem(_ version: String) -> String? {
        guard case .failure(let problem) = read(version) else { return nil }
        return problem.message
    }

    struct Unreadable: Error {
        var message: String
    }

    /// Read by code points, as the OpenAPI document's pattern reads it: a mark or an emoji
    /// modifier after a digit ("3🏻") is a suffix, not part of one character that is no digit.
    static func read(_ version: String) -> Result<[Int], Unreadable> {
        var parts: [Int] = []
        for piece in version.unicodeScalars.split(separator: ".", omittingEmptySubsequences: false) {
            let digits = piece.prefix { ("0"..."9").contains($0) }
            if digits.isEmpty { break }
            guard digits.count <= maximumDigits, let number = Int(String(String.UnicodeScalarView(digits))) else {
                return .failure(Unreadable(message: "each number of an app version has at most \(maximumDigits) digits, found \(digits.count) in \"\(version)\""))
            }
            parts.append(number)
            if digits.count < piece.count { break }  // "1-beta": the suffix ends the numbers
        }
        guard !parts.isEmpty else {
            return .failure(Unreadable(message: "an app version starts with a number, such as 5.2 or 5.2.1-beta, found \"\(version)\""))
        }
        guard parts.count <= maximumNumbers else {
            return .failure(Unreadable(message: "an app version has at most \(maximumNumbers) numbers, found \(parts.count) in \"\(version)\""))
        }
        while parts.count > 1, parts.last == 0 { parts.removeLast() }
        return .success(parts)
    }

    /// Whether `version` is at least `minimum`; an unreadable version is never at least anything.
    public static func isAtLeast(_ version: String, _ minimum: String) -> Bool {
        guard let lhs = key(version), let rhs = key(minimum) else { return false }
        return !lhs.lexicographicallyPrecedes(rhs)
    }
}
