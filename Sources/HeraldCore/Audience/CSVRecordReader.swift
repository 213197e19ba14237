import HeraldJSON

/// Reads CSV (RFC 4180: quoted fields may hold commas, quotes and line breaks) record by record
/// from chunks of bytes as they arrive, so a file of any size passes through bounded memory. A
/// record longer than `maximumBytes`, or with a bare CR outside quotes, is refused by its line as
/// soon as that is known, and the rest of it is skipped unheld; a field that is not UTF-8
/// refuses its record.
public struct CSVRecordReader: Sendable {
    public let maximumBytes: Int
    var field: [UInt8] = []
    var record: [String] = []
    var recordBytes = 0
    var problem: ImportLineProblem?
    var inQuotes = false
    var quoteSeen = false
    var fieldStarted = false
    /// A CR outside quotes: a line ending if LF comes next, else a bare CR.
    var carriageReturn = false
    /// The line the reader is on (1-based).
    public private(set) var line = 1
    var recordLine = 1
    var ready: [ImportLine<[String]>] = []

    public init(maximumBytes: Int = ImportLimits.lineBytes) {
        self.maximumBytes = maximumBytes
    }

    /// The records completed by `bytes`, each with the line it started on, and those refused.
    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [ImportLine<[String]>] {
        // Read from a buffer: a generic sequence from another module is walked through a
        // witness call per byte, which made the reading most of an import's cost.
        if let records = bytes.withContiguousStorageIfAvailable({ feed(buffer: $0) }) { return records }
        return Array(bytes).withUnsafeBufferPointer { feed(buffer: $0) }
    }

    mutating func feed(buffer bytes: UnsafeBufferPointer<UInt8>) -> [ImportLine<[String]>] {
        for byte in bytes {
            if carriageReturn {
                carriageReturn = false
                if byte != UInt8(ascii: "\n") { refuse(.bareCarriageReturn) }
            }
            if inQuotes || (byte != UInt8(ascii: "\n") && byte != UInt8(ascii: "\r")) {
                recordBytes += 1
                if recordBytes > maximumBytes { refuse(.tooLong) }
            }
            if inQuotes {
                if byte == UInt8(ascii: "\"") {
                    inQuotes = false
                    quoteSeen = true
                } else {
                    if byte == UInt8(ascii: "\n") { line += 1 }
                    append(byte)
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                if quoteSeen { append(byte) }  // "" inside quotes is one quote
                inQuotes = true
                quoteSeen = false
                fieldStarted = true
            case UInt8(ascii: ","):
                endField()
            case UInt8(ascii: "\n"):
                endField()
                if problem == nil, !(record.count == 1 && record[0].isEmpty) { ready.append(ImportLine(number: recordLine, content: .success(record))) }
                record = []
                recordBytes = 0
                problem = nil
                line += 1
                recordLine = line
            case UInt8(ascii: "\r"):
                quoteSeen = false
                carriageReturn = true
            default:
                quoteSeen = false
                fieldStarted = true
                append(byte)
            }
        }
        defer { ready = [] }
        return ready
    }

    /// The last record when the input does not end with a line break.
    public mutating func finish() -> ImportLine<[String]>? {
        guard problem == nil, fieldStarted || !field.isEmpty || !record.isEmpty else { return nil }
        endField()
        defer {
            record = []
            ready = []
        }
        if let refused = ready.first { return refused }  // its last field is not UTF-8
        return ImportLine(number: recordLine, content: .success(record))
    }

    mutating func append(_ byte: UInt8) {
        if problem == nil { field.append(byte) }
    }

    /// Refuses the current record at once, by its line, and holds none of it from here to its end.
    mutating func refuse(_ found: ImportLineProblem) {
        guard problem == nil else { return }
        problem = found
        ready.append(ImportLine(number: recordLine, content: .failure(found)))
        field = []
        record = []
    }

    mutating func endField() {
        defer {
            field.removeAll(keepingCapacity: true)
            quoteSeen = false
            fieldStarted = false
        }
        guard problem == nil else { return }
        guard let text = field.withUnsafeBufferPointer(String.validUTF8) else { return refuse(.invalidUTF8(column: record.count)) }
        record.append(text)
    }
}
