/// One-dimensional array literals (`{a,"b c",NULL}`), the text form of PostgreSQL arrays.
enum PostgresArrayLiteral {
    /// Every element quoted, `\` and `"` escaped: no element text can change the array's shape.
    static func format(_ elements: [String]) -> String {
        // Byte by byte into one buffer: bulk writes bind arrays of thousands of elements.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(elements.reduce(2) { $0 + $1.utf8.count + 3 })
        bytes.append(UInt8(ascii: "{"))
        for (position, element) in elements.enumerated() {
            if position > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(UInt8(ascii: "\""))
            for byte in element.utf8 {
                if byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "\"") { bytes.append(UInt8(ascii: "\\")) }
                bytes.append(byte)
            }
            bytes.append(UInt8(ascii: "\""))
        }
        bytes.append(UInt8(ascii: "}"))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The elements (`nil` for NULL), or `nil` when the text is not a one-dimensional literal.
    static func parse(_ text: String) -> [String?]? {
        let bytes = Array(text.utf8)
        guard bytes.first == UInt8(ascii: "{"), bytes.last == UInt8(ascii: "}") else { return nil }
        var elements: [String?] = []
        var index = 1
        let end = bytes.count - 1
        if index == end { return [] }
        while index <= end {
            while index < end, bytes[index] == UInt8(ascii: " ") { index += 1 }
            var element: [UInt8] = []
            var quoted = false
            if index < end, bytes[index] == UInt8(ascii: "\"") {
                quoted = true
                index += 1
                while true {
                    guard index < end else { return nil }
                    let byte = bytes[index]
                    if byte == UInt8(ascii: "\"") { index += 1; break }
                    if byte == UInt8(ascii: "\\") {
                        index += 1
                        guard index < end else { return nil }
                    }
                    element.append(bytes[index])
                    index += 1
                }
                while index < end, bytes[index] == UInt8(ascii: " ") { index += 1 }
            } else {
                while index < end, bytes[index] != UInt8(ascii: ","), bytes[index] != UInt8(ascii: "}") {
                    let byte = bytes[index]
                    if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "\"") { return nil }
                    if byte == UInt8(ascii: "\\") {
                        index += 1
                        guard index < end else { return nil }
                    }
                    element.append(bytes[index])
                    index += 1
                }
                while element.last == UInt8(ascii: " ") { element.removeLast() }
            }
            let string = String(decoding: element, as: UTF8.self)
            elements.append(!quoted && string.uppercased() == "NULL" ? nil : string)
            guard index == end || bytes[index] == UInt8(ascii: ",") else { return nil }
            index += 1
        }
        return elements
    }
}
