/// The shape of a Firebase installation ID (FID), the identifier FCM's `fid` target names: 22
/// characters of the URL-safe Base64 alphabet, the first one of `c`, `d`, `e` or `f` (an FID is
/// 128 random bits under the fixed 4-bit header 0111). Google's docs do not spell the shape out;
/// the Firebase SDKs check it so (`VALID_FID_PATTERN = /^[cdef][\w-]{21}$/` in the JS SDK's
/// installations package, the same pattern in the Android SDK), and an FID that fails it was
/// never issued by Firebase.
public enum InstallationID {
    public static let length = 22

    /// What is wrong with `fid`'s shape ("has 7 characters"), or nil when it is shaped right.
    public static func problem(_ fid: String) -> String? {
        if fid.isEmpty { return "is empty" }
        let scalars = Array(fid.unicodeScalars)
        if let bad = scalars.first(where: { !isFIDScalar($0) }) {
            return bad.properties.isWhitespace ? "holds a space" : "holds \"\(bad)\""
        }
        if scalars.count != length { return "has \(scalars.count) characters, not \(length)" }
        if !"cdef".unicodeScalars.contains(scalars[0]) { return "starts with \"\(scalars[0])\", not c, d, e or f" }
        return nil
    }

    /// The rule, as error messages state it.
    public static let rule = "an installation ID is 22 letters, digits, - and _, starting with c, d, e or f"

    static func isFIDScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", "-", "_": true
        default: false
        }
    }
}
