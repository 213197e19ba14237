import HeraldJSON

/// The bounds an import puts on its input, which is hostile input: any file from outside.
public enum ImportLimits {
    /// A device's line is a few hundred bytes (50 properties of 500 characters fit in 64 KiB with
    /// room to spare); a longer line is refused unread, so one line cannot fill the server's memory.
    public static let lineBytes = 64 * 1024
    /// The columns of a CSV header; a device has 9 fields and at most 50 properties.
    public static let columns = 1000
}

/// Why a line of an import (an NDJSON line, a CSV record) was refused before it was read.
public enum ImportLineProblem: Error, Sendable, Equatable {
    /// Longer than `ImportLimits.lineBytes`; skipped to its end unread.
    case tooLong
    /// A carriage return not followed by a line feed: the file ends its lines in bare CR (as
    /// classic Mac OS did), which would otherwise read as one endless line.
    case bareCarriageReturn
    /// Bytes that are not UTF-8, in the CSV column at this index, or anywhere on the line (nil).
    case invalidUTF8(column: Int?)

    /// The problem as the import's report lists it, under `field` (a CSV column's name, or "").
    public func issue(field: String = "") -> FieldError {
        switch self {
        case .tooLong:
            FieldError(path: field, code: "too_long",
                       message: "the line is longer than \(ImportLimits.lineBytes) bytes, the most a device's line may have; it was skipped to its end",
                       limit: ImportLimits.lineBytes)
        case .bareCarriageReturn:
            FieldError(path: field, code: "bare_carriage_return",
                       message: "the line ends in a bare carriage return (CR without LF, as classic Mac OS ended lines); save the file with LF or CRLF line endings")
        case .invalidUTF8:
            FieldError(path: field, code: "invalid_utf8", message: "\(field.isEmpty ? "the line" : field) is not valid UTF-8; save the file as UTF-8")
        }
    }
}

/// A line of an import: its number (1-based; a CSV record spanning lines has its first) and its
/// content, or why it was refused unread.
public struct ImportLine<Content: Sendable>: Sendable {
    public var number: Int
    public var content: Result<Content, ImportLineProblem>

    public init(number: Int, content: Result<Content, ImportLineProblem>) {
        self.number = number
        self.content = content
    }
}

extension ImportLine: Equatable where Content: Equatable {}

/// Splits bytes into lines ending in LF or CRLF as chunks arrive, for NDJSON. It never holds more
/// than `maximumBytes` of a line: a longer line is refused by its number as soon as it passes the
/// bound and the rest of it is skipped; a line with a bare CR is refused the same way. Each byte
/// is looked at a bounded number of times, however long the line.
public struct ImportLineReader: Sendable {
    public let maximumBytes: Int
    var bytes: [UInt8] = []
    var problem: ImportLineProblem?
    /// The line so far ended in CR: a line ending if LF comes next, else a bare CR.
    var carriageReturn = false
    var line = 1
    var ready: [ImportLine<String>] = []

    public init(maximumBytes: Int = ImportLimits.lineBytes) {
        self.maximumBytes = maximumBytes
    }

    /// The lines `chunk` completes, and those it refuses; blank lines are left out.
    public mutating func feed(_ chunk: some BidirectionalCollection<UInt8>) -> [ImportLine<String>] {
        // Read from a buffer, as CSVRecordReader does: no witness call per byte.
        if let lines = chunk.withContiguousStorageIfAvailable({ feed(buffer: $0) }) { return lines }
        return Array(chunk).withUnsafeBufferPointer { feed(buffer: $0) }
    }

    mutating func feed(buffer chunk: UnsafeBufferPointer<UInt8>) -> [ImportLine<String>] {
        var start = chunk.startIndex
        while let end = chunk[start...].firstIndex(of: UInt8(ascii: "\n")) {
            take(chunk[start..<end])
            endLine()
            start = chunk.index(after: end)
        }
        take(chunk[start...])
        defer { ready = [] }
        return ready
    }

    /// The last line when the input does not end with a line break.
    public mutating func finish() -> [ImportLine<String>] {
        if !bytes.isEmpty { endLine() }
        defer { ready = [] }
        return ready
    }

    mutating func take(_ piece: some BidirectionalCollection<UInt8>) {
        guard !piece.isEmpty else { return }
        if carriageReturn { refuse(.bareCarriageReturn) }
        carriageReturn = piece.last == UInt8(ascii: "\r")
        let content = carriageReturn ? piece.dropLast() : piece[...]
        if content.contains(UInt8(ascii: "\r")) { refuse(.bareCarriageReturn) }
        guard problem == nil else { return }
        guard bytes.count + content.count <= maximumBytes else { return refuse(.tooLong) }
        bytes.append(contentsOf: content)
    }

    /// Refuses the current line at once, by its number, and holds none of it from here to its end.
    mutating func refuse(_ found: ImportLineProblem) {
        guard problem == nil else { return }
        problem = found
        ready.append(ImportLine(number: line, content: .failure(found)))
        bytes = []
    }

    mutating func endLine() {
        defer {
            bytes.removeAll(keepingCapacity: true)
            problem = nil
            carriageReturn = false
            line += 1
        }
        guard problem == nil, bytes.contains(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }) else { return }
        let text = bytes.withUnsafeBufferPointer(String.validUTF8)
        ready.append(ImportLine(number: line, content: text.map { .success($0) } ?? .failure(.invalidUTF8(column: nil))))
    }
}
