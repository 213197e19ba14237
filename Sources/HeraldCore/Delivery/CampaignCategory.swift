/// A campaign's category ("promotions", "news"): what category caps count and what a device's
/// quiet categories switch off.
public enum CampaignCategory {
    public static let maximumCharacters = 40
    /// Lower-case letters, digits, `-` and `_`, starting with a letter or digit.
    public static let pattern = "^[a-z0-9][a-z0-9_-]{0,39}$"

    /// What is wrong with `name` as a category, or nil.
    public static func problem(_ name: String) -> String? {
        let scalars = Array(name.unicodeScalars)
        func allowed(_ scalar: Unicode.Scalar, first: Bool) -> Bool {
            ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) || (!first && (scalar == "-" || scalar == "_"))
        }
        guard (1...maximumCharacters).contains(scalars.count), allowed(scalars[0], first: true),
              scalars.dropFirst().allSatisfy({ allowed($0, first: false) }) else {
            return "a category is 1 to \(maximumCharacters) lower-case letters, digits, - and _, such as promotions or news, found \"\(name)\""
        }
        return nil
    }
}
