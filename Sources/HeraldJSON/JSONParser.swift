/// Where and why a JSON text is malformed. Lines and columns count from 1; columns count characters
/// (Unicode scalars), as an editor shows them.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    public let line: Int
    public let column: Int
    public let reason: String

    public var description: String { "\(reason) at line \(line), column \(column)" }
}

extension JSON {
    /// Parses one JSON text (RFC 8259). Duplicate keys in an object are an error rather than a guess.
    public static func parse(_ bytes: some Collection<UInt8>) throws(JSONParseError) -> JSON {
        let array = Array(bytes)
        return try array.withUnsafeBufferPointer { buffer throws(JSONParseError) in
            var parser = JSONParser(buffer)
            return try parser.parseDocument()
        }
    }

    /// Parses one JSON text given as a string.
    public static func parse(_ text: String) throws(JSONParseError) -> JSON {
        try parse(Array(text.utf8))
    }
}

struct JSONParser {
    /// Deep enough for any real document, shallow enough that the recursion cannot exhaust the stack.
    static let maximumDepth = 256

    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    var depth = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    mutating func parseDocument() throws(JSONParseError) -> JSON {
        skipWhitespace()
        guard index < bytes.count else { throw error("unexpected end of input, expected a JSON value") }
        let value = try parseValue()
        skipWhitespace()
        guard index == bytes.count else { throw error("unexpected \(describeCurrent()) after the JSON value") }
        return value
    }

    mutating func parseValue() throws(JSONParseError) -> JSON {
        guard index < bytes.count else { throw error("unexpected end of input, expected a JSON value") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectWord("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectWord("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectWord("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("unexpected \(describeCurrent()), expected a JSON value")
        }
    }

    mutating func parseObject() throws(JSONParseError) -> JSON {
        try enterContainer()
        index += 1
        var object = JSONObject()
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object(object)
        }
        while true {
            skipWhitespace()
            guard peek() == UInt8(ascii: "\"") else {
                throw error(index < bytes.count ? "expected a string key, found \(describeCurrent())" : "unexpected end of input inside an object")
            }
            let keyStart = index
            let key = try parseString()
            if object[key] != nil {
                index = keyStart
                throw error("duplicate key \"\(key)\"")
            }
            skipWhitespace()
            guard peek() == UInt8(ascii: ":") else {
                throw error(index < bytes.count ? "expected ':' after the key \"\(key)\", found \(describeCurrent())" : "unexpected end of input inside an object")
            }
            index += 1
            skipWhitespace()
            object[key] = try parseValue()
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","):
                index += 1
                skipWhitespace()
                if peek() == UInt8(ascii: "}") { throw error("trailing comma in an object") }
            case UInt8(ascii: "}"):
                index += 1
                depth -= 1
                return .object(object)
            case nil:
                throw error("unexpected end of input inside an object")
            default:
                throw error("expected ',' or '}' in an object, found \(describeCurrent())")
            }
        }
    }

    mutating func parseArray() throws(JSONParseError) -> JSON {
        try enterContainer()
        index += 1
        var elements: [JSON] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","):
                index += 1
                skipWhitespace()
                if peek() == UInt8(ascii: "]") { throw error("trailing comma in an array") }
            case UInt8(ascii: "]"):
                index += 1
                depth -= 1
                return .array(elements)
            case nil:
                throw error("unexpected end of input inside an array")
            default:
                throw error("expected ',' or ']' in an array, found \(describeCurrent())")
            }
        }
    }

    mutating func enterContainer() throws(JSONParseError) {
        depth += 1
        if depth > Self.maximumDepth { throw error("nesting deeper than \(Self.maximumDepth) levels") }
    }

    mutating func parseString() throws(JSONParseError) -> String {
        let start = index
        index += 1  // opening quote
        let contentStart = index
        // Fast path: most strings have no escapes and decode straight from the input bytes.
        var highBits: UInt8 = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                guard let text = Self.string(UnsafeBufferPointer(rebasing: bytes[contentStart..<index]), ascii: highBits < 0x80) else {
                    index = contentStart
                    throw error("invalid UTF-8 in a string")
                }
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            highBits |= byte
            index += 1
        }
        var utf8: [UInt8] = Array(UnsafeBufferPointer(rebasing: bytes[contentStart..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                guard let text = utf8.withUnsafeBufferPointer({ Self.string($0, ascii: false) }) else {
                    index = contentStart
                    throw error("invalid UTF-8 in a string")
                }
                return text
            case UInt8(ascii: "\\"):
                let scalar = try parseEscape()
                utf8.append(contentsOf: UTF8.encode(scalar)!)
            case 0x00..<0x20:
                throw error("control character U+\(hex4(UInt32(byte))) must be escaped in a string")
            default:
                utf8.append(byte)
                index += 1
            }
        }
        index = start
        throw error("unterminated string")
    }

    /// The text of UTF-8 bytes, nil when they are not valid UTF-8; ASCII needs no check at all.
    static func string(_ utf8: UnsafeBufferPointer<UInt8>, ascii: Bool) -> String? {
        ascii ? String(decoding: utf8, as: UTF8.self) : String.validUTF8(utf8)
    }

    mutating func parseEscape() throws(JSONParseError) -> Unicode.Scalar {
        index += 1  // backslash
        guard index < bytes.count else { throw error("unterminated escape sequence") }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let escapeStart = index - 2
            let high = try parseHex4()
            if (0xD800...0xDBFF).contains(high) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                    index = escapeStart
                    throw error("unpaired surrogate \\u\(hex4(high))")
                }
                index += 2
                let low = try parseHex4()
                guard (0xDC00...0xDFFF).contains(low) else {
                    index = escapeStart
                    throw error("invalid surrogate pair \\u\(hex4(high))\\u\(hex4(low))")
                }
                return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))!
            }
            guard let scalar = Unicode.Scalar(high) else {
                index = escapeStart
                throw error("unpaired surrogate \\u\(hex4(high))")
            }
            return scalar
        default:
            index -= 2
            throw error("invalid escape sequence")
        }
    }

    mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard index < bytes.count, let digit = hexDigit(bytes[index]) else {
                throw error("expected four hexadecimal digits after \\u")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    mutating func parseNumber() throws(JSONParseError) -> JSON {
        let start = index
        if peek() == UInt8(ascii: "-") { index += 1 }
        guard let first = peek(), isDigit(first) else { throw error("expected a digit in a number") }
        if first == UInt8(ascii: "0") {
            index += 1
            if let next = peek(), isDigit(next) {
                index = start
                throw error("numbers must not have leading zeros")
            }
        } else {
            skipDigits()
        }
        if peek() == UInt8(ascii: ".") {
            index += 1
            guard let next = peek(), isDigit(next) else { throw error("expected a digit after the decimal point") }
            skipDigits()
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            index += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { index += 1 }
            guard let next = peek(), isDigit(next) else { throw error("expected a digit in the exponent") }
            skipDigits()
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            index = start
            throw error("number out of range")
        }
        return .number(value)
    }

    mutating func expectWord(_ word: StaticString) throws(JSONParseError) {
        let start = index
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else {
            throw error("unexpected \(describeCurrent()), expected a JSON value")
        }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] {
            index = start
            throw error("unexpected \(describeCurrent()), expected a JSON value")
        }
        index += count
        if let next = peek(), isLetter(next) {
            index = start
            throw error("unexpected \(describeCurrent()), expected a JSON value")
        }
    }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    mutating func skipDigits() {
        while let byte = peek(), isDigit(byte) { index += 1 }
    }

    func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

    func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
    func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") }

    func hexDigit(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    func hex4(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// The current byte in words, for error messages.
    func describeCurrent() -> String {
        guard index < bytes.count else { return "end of input" }
        let byte = bytes[index]
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x\(String(byte, radix: 16, uppercase: true))"
    }

    /// An error at the current index, with its line and column.
    func error(_ reason: String) -> JSONParseError {
        var line = 1
        var column = 1
        var position = 0
        let end = min(index, bytes.count)
        while position < end {
            let byte = bytes[position]
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1  // count scalars, not UTF-8 continuation bytes
            }
            position += 1
        }
        return JSONParseError(line: line, column: column, reason: reason)
    }
}
