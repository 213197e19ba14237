extension JSON {
    /// The compact UTF-8 encoding: no insignificant white space, object members in their order,
    /// "/" not escaped, non-ASCII characters written as themselves (FCM counts payload bytes).
    public func serialized() -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        write(into: &output)
        return output
    }

    /// The compact encoding as a string.
    public func serializedString() -> String {
        String(decoding: serialized(), as: UTF8.self)
    }

    /// An indented encoding (two spaces), for people: previews, documents, test failures.
    public func prettyString() -> String {
        var output: [UInt8] = []
        writePretty(into: &output, indent: 0)
        return String(decoding: output, as: UTF8.self)
    }

    /// Appends the compact encoding to `output`.
    public func write(into output: inout [UInt8]) {
        switch self {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let value): output.append(contentsOf: (value ? "true" : "false").utf8)
        case .number(let value): JSON.writeNumber(value, into: &output)
        case .string(let value): JSON.writeString(value, into: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (offset, element) in elements.enumerated() {
                if offset > 0 { output.append(UInt8(ascii: ",")) }
                element.write(into: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let object):
            output.append(UInt8(ascii: "{"))
            for (offset, member) in object.members.enumerated() {
                if offset > 0 { output.append(UInt8(ascii: ",")) }
                JSON.writeString(member.key, into: &output)
                output.append(UInt8(ascii: ":"))
                member.value.write(into: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    func writePretty(into output: inout [UInt8], indent: Int) {
        func newline(_ level: Int) {
            output.append(0x0A)
            output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: level * 2))
        }
        switch self {
        case .array(let elements) where !elements.isEmpty:
            output.append(UInt8(ascii: "["))
            for (offset, element) in elements.enumerated() {
                if offset > 0 { output.append(UInt8(ascii: ",")) }
                newline(indent + 1)
                element.writePretty(into: &output, indent: indent + 1)
            }
            newline(indent)
            output.append(UInt8(ascii: "]"))
        case .object(let object) where !object.isEmpty:
            output.append(UInt8(ascii: "{"))
            for (offset, member) in object.members.enumerated() {
                if offset > 0 { output.append(UInt8(ascii: ",")) }
                newline(indent + 1)
                JSON.writeString(member.key, into: &output)
                output.append(contentsOf: ": ".utf8)
                member.value.writePretty(into: &output, indent: indent + 1)
            }
            newline(indent)
            output.append(UInt8(ascii: "}"))
        default:
            write(into: &output)
        }
    }

    /// Whole numbers within the exactly representable range print without a fraction ("42", not "42.0").
    static func writeNumber(_ value: Double, into output: inout [UInt8]) {
        guard value.isFinite else {
            output.append(contentsOf: "null".utf8)  // JSON has no NaN or infinity
            return
        }
        if value.rounded() == value, abs(value) < 9_007_199_254_740_992 {
            output.append(contentsOf: String(Int64(value)).utf8)
        } else {
            output.append(contentsOf: "\(value)".utf8)
        }
    }

    /// Appends `value` as a JSON string literal.
    public static func writeString(_ value: String, into output: inout [UInt8]) {
        var value = value
        value.withUTF8 { bytes in
            // Most strings (every key, most values) need no escape: found by a plain scan and
            // copied in one append, without the run-splitting loop (1,300 instructions of an
            // API GET's answer, callgrind).
            guard let first = firstEscaped(bytes) else {
                output.append(UInt8(ascii: "\""))
                output.append(contentsOf: bytes)
                output.append(UInt8(ascii: "\""))
                return
            }
            output.append(UInt8(ascii: "\""))
            // Runs of bytes that need no escape are copied whole.
            var start = 0
            for index in first..<bytes.count where needsEscape(bytes[index]) {
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
                start = index + 1
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: "\""): output.append(contentsOf: [0x5C, 0x22])
                case UInt8(ascii: "\\"): output.append(contentsOf: [0x5C, 0x5C])
                case 0x0A: output.append(contentsOf: [0x5C, UInt8(ascii: "n")])
                case 0x0D: output.append(contentsOf: [0x5C, UInt8(ascii: "r")])
                case 0x09: output.append(contentsOf: [0x5C, UInt8(ascii: "t")])
                default:
                    let hex: [UInt8] = Array("0123456789abcdef".utf8)
                    output.append(contentsOf: [0x5C, UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
                }
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...]))
            output.append(UInt8(ascii: "\""))
        }
    }

    @inline(__always) private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    /// The offset of the first byte that must be escaped, or nil.
    @inline(__always) private static func firstEscaped(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var index = 0
        while index < bytes.count {
            if needsEscape(bytes[index]) { return index }
            index += 1
        }
        return nil
    }
}
