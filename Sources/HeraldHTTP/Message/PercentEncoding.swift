/// Percent-encoding (RFC 3986 §2.1): every byte but the unreserved ASCII characters (letters,
/// digits, `-._~`) and those in `keeping` becomes `%XX`, so the text is safe in a query value or
/// (keeping `/`) in a path. Letters outside ASCII are encoded too, as their UTF-8 bytes.
public enum PercentEncoding {
    public static func encode(_ text: String, keeping: String = "") -> String {
        let kept = Set(keeping.utf8)
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            let unreserved = (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7a)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~")
            if unreserved || kept.contains(byte) {
                out.append(byte)
            } else {
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0f)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs (HTTP's optional white space, RFC 9110 §5.6.3).
    /// Inlinable so that callers in other modules get it specialized for their string type.
    @inlinable public var trimmingSpaces: String {
        // Most values arrive trimmed: when neither end byte is a space or tab, neither end character
        // can be one (each is that single byte), so the character walk below is not needed.
        let untrimmed = utf8.withContiguousStorageIfAvailable { bytes in
            bytes.isEmpty || !(bytes.first! == 0x20 || bytes.first! == 0x09 || bytes.last! == 0x20 || bytes.last! == 0x09)
        }
        if untrimmed == true { return String(self) }
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
