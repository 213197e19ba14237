/// An ordered list of header fields. Order and duplicates are kept (a duplicate `Content-Length`
/// must be seen to be refused); lookups compare names ASCII-case-insensitively (RFC 9110 §5.1).
///
/// The fields live as byte ranges in one buffer: the parser copies a request's header block once
/// instead of making two strings per field, a lookup compares bytes in place, and the response
/// serializer copies names and values without decoding them. Strings are made only for what a
/// caller reads.
public struct HTTPHeaders: Sendable, Sequence, Equatable, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    /// One field line: its name as sent and its value with surrounding whitespace removed.
    public typealias Element = (name: String, value: String)

    /// Where one field's name and value are in `bytes`.
    struct Field: Sendable {
        var name: Range<Int>
        var value: Range<Int>
    }

    private var bytes: [UInt8]
    private var fields: [Field]

    /// An empty list.
    public init() {
        bytes = []
        fields = []
    }

    /// The given fields, in order.
    public init(_ fields: [(String, String)]) {
        self.init()
        bytes.reserveCapacity(fields.reduce(0) { $0 + $1.0.utf8.count + $1.1.utf8.count })
        self.fields.reserveCapacity(fields.count)
        for (name, value) in fields { add(name, value) }
    }

    /// `[:]` and `["Content-Type": "text/plain"]` literals, in the order written.
    public init(dictionaryLiteral elements: (String, String)...) { self.init(elements) }

    /// Fields already laid out in `bytes` (the parser's copy of a header block).
    init(bytes: [UInt8], fields: [Field]) {
        self.bytes = bytes
        self.fields = fields
    }

    /// The number of field lines.
    public var count: Int { fields.count }

    /// True when there is no field.
    public var isEmpty: Bool { fields.isEmpty }

    /// The first value of the named field, or nil.
    public subscript(name: String) -> String? {
        guard let index = firstIndex(of: name) else { return nil }
        return string(fields[index].value)
    }

    /// Every value of the named field, in order.
    public func values(for name: String) -> [String] {
        var name = name
        return name.withUTF8 { wanted in
            fields.filter { hasName($0, wanted) }.map { string($0.value) }
        }
    }

    /// Whether any field has this name.
    public func contains(_ name: String) -> Bool { firstIndex(of: name) != nil }

    /// Appends a field, keeping any existing ones of the same name.
    public mutating func add(_ name: String, _ value: String) {
        var (name, value) = (name, value)
        // A response's fields are added one by one: room for a typical set at once, not growth per field.
        if fields.isEmpty && bytes.capacity == 0 {
            bytes.reserveCapacity(256)
            fields.reserveCapacity(8)
        }
        let nameStart = bytes.count
        name.withUTF8 { bytes.append(contentsOf: $0) }
        let valueStart = bytes.count
        value.withUTF8 { bytes.append(contentsOf: $0) }
        fields.append(Field(name: nameStart..<valueStart, value: valueStart..<bytes.count))
    }

    /// Replaces every field of this name by one field with this value.
    public mutating func set(_ name: String, _ value: String) {
        remove(name)
        add(name, value)
    }

    /// Removes every field of this name. Its bytes stay until the list is copied: a response's
    /// list is short-lived, and compacting would cost more than it saves.
    public mutating func remove(_ name: String) {
        guard firstIndex(of: name) != nil else { return }
        var name = name
        let bytes = self.bytes
        name.withUTF8 { wanted in
            fields.removeAll { field in Self.equalIgnoringCase(bytes, field.name, wanted) }
        }
    }

    public struct Iterator: IteratorProtocol {
        private let headers: HTTPHeaders
        private var index = 0

        init(_ headers: HTTPHeaders) { self.headers = headers }

        public mutating func next() -> Element? {
            guard index < headers.fields.count else { return nil }
            defer { index += 1 }
            let field = headers.fields[index]
            return (headers.string(field.name), headers.string(field.value))
        }
    }

    public func makeIterator() -> Iterator { Iterator(self) }

    public var underestimatedCount: Int { fields.count }

    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.count == rhs.fields.count
            && zip(lhs.fields, rhs.fields).allSatisfy { left, right in
                lhs.bytes[left.name].elementsEqual(rhs.bytes[right.name])
                    && lhs.bytes[left.value].elementsEqual(rhs.bytes[right.value])
            }
    }

    public var description: String { map { "\($0.name): \($0.value)" }.joined(separator: "\n") }

    /// Calls `body` with each field's name and value bytes, in order (for the serializer).
    func forEachField(_ body: (Slice<UnsafeBufferPointer<UInt8>>, Slice<UnsafeBufferPointer<UInt8>>) -> Void) {
        bytes.withUnsafeBufferPointer { buffer in
            for field in fields { body(buffer[field.name], buffer[field.value]) }
        }
    }

    private func firstIndex(of name: String) -> Int? {
        var name = name
        return name.withUTF8 { wanted in fields.firstIndex { hasName($0, wanted) } }
    }

    private func hasName(_ field: Field, _ wanted: UnsafeBufferPointer<UInt8>) -> Bool {
        Self.equalIgnoringCase(bytes, field.name, wanted)
    }

    private static func equalIgnoringCase(_ bytes: [UInt8], _ range: Range<Int>, _ wanted: UnsafeBufferPointer<UInt8>) -> Bool {
        guard range.count == wanted.count else { return false }
        var position = range.lowerBound
        for byte in wanted {
            guard asciiLower(bytes[position]) == asciiLower(byte) else { return false }
            position += 1
        }
        return true
    }

    private func string(_ range: Range<Int>) -> String {
        bytes.withUnsafeBufferPointer { String(decoding: $0[range], as: UTF8.self) }
    }

    /// ASCII case-insensitive comparison of field names, without allocating.
    static func sameName(_ a: String, _ b: String) -> Bool {
        var left = a.utf8.makeIterator()
        var right = b.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return true
            case let (x?, y?) where asciiLower(x) == asciiLower(y): continue
            default: return false
            }
        }
    }

    @inline(__always) static func asciiLower(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }
}
