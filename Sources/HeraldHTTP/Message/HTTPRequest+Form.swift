extension HTTPRequest {
    /// Decodes `application/x-www-form-urlencoded` bytes (a query string or an HTML form body):
    /// pairs split on `&`, name and value on the first `=`, `+` is a space, `%XX` is a byte.
    /// A malformed escape is kept literally; invalid UTF-8 becomes U+FFFD. Empty pairs are skipped.
    public static func decodeForm(_ bytes: [UInt8]) -> [(name: String, value: String)] {
        var items: [(name: String, value: String)] = []
        var pairStart = 0
        while pairStart <= bytes.count {
            let pairEnd = bytes[pairStart...].firstIndex(of: UInt8(ascii: "&")) ?? bytes.count
            if pairEnd > pairStart {
                let pair = bytes[pairStart..<pairEnd]
                if let equals = pair.firstIndex(of: UInt8(ascii: "=")) {
                    items.append((decodeComponent(pair[..<equals], plusIsSpace: true),
                                  decodeComponent(pair[(equals + 1)...], plusIsSpace: true)))
                } else {
                    items.append((decodeComponent(pair, plusIsSpace: true), ""))
                }
            }
            pairStart = pairEnd + 1
        }
        return items
    }

    /// Percent-decodes one path segment (`+` stays a plus).
    public static func percentDecoded(_ segment: Substring) -> String {
        decodeComponent(Array(segment.utf8), plusIsSpace: false)
    }

    /// Percent-decodes one component; `+` becomes a space only in form encoding.
    static func decodeComponent<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes, plusIsSpace: Bool) -> String
    where Bytes.Index == Int {
        guard bytes.contains(where: { $0 == UInt8(ascii: "%") || (plusIsSpace && $0 == UInt8(ascii: "+")) }) else {
            return String(decoding: bytes, as: UTF8.self)
        }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let byte = bytes[i]
            if byte == UInt8(ascii: "%"), i + 2 < bytes.endIndex,
               let high = hexValue(bytes[i + 1]), let low = hexValue(bytes[i + 2]) {
                out.append(high << 4 | low)
                i += 3
                continue
            }
            out.append(plusIsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
