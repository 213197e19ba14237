/// A `multipart/form-data` body (RFC 7578) split into its parts. Pure: bytes in, parts out, with
/// limits on the number of parts and on each part's size, so a hostile upload cannot make the
/// server hold more than it agreed to.
public struct MultipartFormData: Sendable, Equatable {
    /// One part: a form field, or a file when `filename` is set.
    public struct Part: Sendable, Equatable {
        public var name: String
        public var filename: String?
        public var contentType: String?
        public var body: [UInt8]

        /// The body as UTF-8 text (a plain field's value).
        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// Why a body could not be read.
    public enum ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        case missingBoundary
        case malformed(String)
        case tooManyParts(limit: Int)
        case partTooLarge(name: String, limit: Int)

        public var description: String {
            switch self {
            case .missingBoundary: "the Content-Type has no multipart boundary"
            case .malformed(let why): "the multipart body is malformed: \(why)"
            case .tooManyParts(let limit): "the form has more than \(limit) parts"
            case .partTooLarge(let name, let limit): "the part \"\(name)\" is larger than \(limit) bytes"
            }
        }
    }

    public var parts: [Part]

    /// The first plain field with this name.
    public func value(_ name: String) -> String? { parts.first { $0.name == name && $0.filename == nil }?.text }

    /// The first file part with this name that carries any bytes.
    public func file(_ name: String) -> Part? { parts.first { $0.name == name && $0.filename != nil && !$0.body.isEmpty } }

    /// The boundary named in a `multipart/form-data` Content-Type, or nil.
    public static func boundary(contentType: String) -> String? {
        let pieces = contentType.split(separator: ";").map { $0.trimmingSpaces }
        guard let type = pieces.first, type.lowercased() == "multipart/form-data" else { return nil }
        for piece in pieces.dropFirst() {
            guard let equals = piece.firstIndex(of: "=") else { continue }
            guard piece[..<equals].lowercased() == "boundary" else { continue }
            var value = Substring(piece[piece.index(after: equals)...])
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = value.dropFirst().dropLast() }
            // RFC 2046 §5.1.1: 1 to 70 characters.
            return (1...70).contains(value.utf8.count) ? String(value) : nil
        }
        return nil
    }

    /// Splits `body` at `--boundary` delimiters. `maxPartBytes` limits any one part's body.
    public static func parse(_ body: [UInt8], boundary: String, maxParts: Int = 100, maxPartBytes: Int) throws(ParseError) -> MultipartFormData {
        let delimiter = Array("--\(boundary)".utf8)
        guard var position = find(delimiter, in: body, from: 0) else { throw .malformed("no opening boundary") }
        position += delimiter.count
        var parts: [Part] = []
        while true {
            // After a delimiter: "--" closes the body, CRLF starts a part.
            if starts(body, at: position, with: [0x2D, 0x2D]) { break }
            guard starts(body, at: position, with: [0x0D, 0x0A]) else { throw .malformed("a boundary is not followed by CRLF") }
            position += 2
            guard let headEnd = find([0x0D, 0x0A, 0x0D, 0x0A], in: body, from: position) else { throw .malformed("a part's headers do not end") }
            let head = String(decoding: body[position..<headEnd], as: UTF8.self)
            let contentStart = headEnd + 4
            guard let next = find([0x0D, 0x0A] + delimiter, in: body, from: contentStart) else { throw .malformed("a part is not closed by a boundary") }
            guard parts.count < maxParts else { throw .tooManyParts(limit: maxParts) }
            var part = try headers(head)
            guard next - contentStart <= maxPartBytes else { throw .partTooLarge(name: part.name, limit: maxPartBytes) }
            part.body = Array(body[contentStart..<next])
            parts.append(part)
            position = next + 2 + delimiter.count
        }
        return MultipartFormData(parts: parts)
    }

    /// Reads Content-Disposition (name, filename) and Content-Type from a part's header block.
    static func headers(_ head: String) throws(ParseError) -> Part {
        var name: String?
        var filename: String?
        var contentType: String?
        for line in head.split(separator: "\r\n", omittingEmptySubsequences: true) {
            guard let colon = line.firstIndex(of: ":") else { throw .malformed("a part header has no colon") }
            let field = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingSpaces
            if field == "content-type" { contentType = value }
            guard field == "content-disposition" else { continue }
            for parameter in dispositionParameters(value) {
                if parameter.key == "name" { name = parameter.value }
                if parameter.key == "filename" { filename = parameter.value }
            }
        }
        guard let name else { throw .malformed("a part has no Content-Disposition name") }
        return Part(name: name, filename: filename, contentType: contentType, body: [])
    }

    /// `form-data; name="a"; filename="b.png"` → [(name, a), (filename, b.png)]; quoted values may hold `;`.
    static func dispositionParameters(_ value: String) -> [(key: String, value: String)] {
        var result: [(key: String, value: String)] = []
        var scalars = Substring(value)
        while let semicolon = scalars.firstIndex(of: ";") {
            scalars = scalars[scalars.index(after: semicolon)...].drop { $0 == " " || $0 == "\t" }
            guard let equals = scalars.firstIndex(of: "=") else { break }
            let key = scalars[..<equals].lowercased()
            var rest = scalars[scalars.index(after: equals)...]
            var parsed = ""
            if rest.first == "\"" {
                rest = rest.dropFirst()
                var escaped = false
                var end = rest.endIndex
                for index in rest.indices {
                    let character = rest[index]
                    if escaped { parsed.append(character); escaped = false; continue }
                    if character == "\\" { escaped = true; continue }
                    if character == "\"" { end = index; break }
                    parsed.append(character)
                }
                scalars = end < rest.endIndex ? rest[rest.index(after: end)...] : rest[rest.endIndex...]
            } else {
                let end = rest.firstIndex(of: ";") ?? rest.endIndex
                parsed = rest[..<end].trimmingSpaces
                scalars = rest[end...]
            }
            result.append((key, parsed))
        }
        return result
    }

    static func starts(_ bytes: [UInt8], at offset: Int, with prefix: [UInt8]) -> Bool {
        offset + prefix.count <= bytes.count && bytes[offset..<offset + prefix.count].elementsEqual(prefix)
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count else { return nil }
        var index = start
        let last = haystack.count - needle.count
        let first = needle[0]
        while index <= last {
            if haystack[index] == first && haystack[index..<index + needle.count].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}
