/// Character classes of RFC 9110 §5.6 and RFC 9112, as table lookups on bytes.
enum ByteClass {
    static let cr: UInt8 = 0x0D
    static let lf: UInt8 = 0x0A
    static let space: UInt8 = 0x20
    static let tab: UInt8 = 0x09
    static let colon: UInt8 = 0x3A

    /// tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA
    private static let tcharTable: [Bool] = (0..<256).map { value in
        let byte = UInt8(value)
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
            return true
        default:
            return Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }

    @inline(__always) static func isTokenChar(_ byte: UInt8) -> Bool { tcharTable[Int(byte)] }

    /// field-vchar = VCHAR / obs-text, plus SP and HTAB inside a value (RFC 9110 §5.5).
    @inline(__always) static func isFieldValueChar(_ byte: UInt8) -> Bool {
        byte == tab || (byte >= 0x20 && byte != 0x7F)
    }

    /// Visible ASCII, what a request-target may contain (RFC 3986 characters, RFC 9112 §3.2).
    @inline(__always) static func isTargetChar(_ byte: UInt8) -> Bool { byte > 0x20 && byte < 0x7F }

    /// uri-host and port characters: unreserved, pct-encoded, sub-delims, ":" and the IP-literal brackets (RFC 3986 §3.2.2).
    @inline(__always) static func isHostChar(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "%"), UInt8(ascii: "!"),
             UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "*"),
             UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="), UInt8(ascii: ":"), UInt8(ascii: "["),
             UInt8(ascii: "]"):
            true
        default:
            false
        }
    }

    @inline(__always) static func isWhitespace(_ byte: UInt8) -> Bool { byte == space || byte == tab }

    @inline(__always) static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    /// ASCII case-insensitive comparison of `bytes[from..<to]` with a lowercase literal.
    @inline(__always) static func equalsLowercase(_ bytes: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int, _ lower: StaticString) -> Bool {
        guard to - from == lower.utf8CodeUnitCount else { return false }
        let literal = lower.utf8Start
        for i in 0..<(to - from) where HTTPHeaders.asciiLower(bytes[from + i]) != literal[i] { return false }
        return true
    }
}
