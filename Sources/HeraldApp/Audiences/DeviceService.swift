import HeraldCore
import HeraldFCM
import HeraldJSON
import HeraldPostgres

/// The device registry's use cases: register, forget, look up, import and export devices.
public struct DeviceService: Sendable {
    let database: Database
    let store = DeviceStore()
    let jobs = TopicJobStore()
    /// Server-side topic subscriptions need it; nil when sending is not configured.
    let sender: FCMSender?

    public init(database: Database, sender: FCMSender? = nil) {
        self.database = database
        self.sender = sender
    }

    /// Registers or updates the device with `token` from its document; returns it as stored and
    /// whether it is new. A device FCM refused, or a stale one, becomes active again.
    public func register(token: String, document: JSON) throws -> (device: StoredDevice, created: Bool) {
        let device = try Self.checked(Device.parse(document, token: token, ignoring: ["registered_at", "status", "invalid_reason"]))
        return try database.transaction { connection in
            let created = try store.upsert([device], on: connection) == 1
            // A device that comes to match a journey's segment enters it.
            try JourneyEvents().devicesStored([device.token], on: connection)
            guard let stored = try store.get(device.token, on: connection) else { throw AppError.notFound(.device) }
            return (stored, created)
        }
    }

    public func get(_ token: String) throws -> StoredDevice {
        // No stored token holds NUL (PostgreSQL text cannot): such a token is simply not registered.
        guard !token.contains("\0"), let device = try database.read({ try store.get(token, on: $0) }) else { throw AppError.notFound(.device) }
        return device
    }

    /// Forgets a device everywhere (`DeviceErasure`), then folds the census so that its personal
    /// values leave the segment counts now (another fold under way leaves that to the next poll).
    public func forget(_ token: String) throws {
        guard !token.contains("\0"), try database.read({ try DeviceErasure().erase(token, on: $0) }) else { throw AppError.notFound(.device) }
        _ = try foldCensus()
    }

    public func list(_ filter: DeviceFilter, after: String?, limit: Int) throws -> [StoredDevice] {
        try database.read { try store.list(filter, after: after, limit: limit, on: $0) }
    }

    public func counts() throws -> DeviceCounts {
        try database.read { try store.counts(on: $0) }
    }

    /// The most common values among active devices of each attribute a segment editor suggests
    /// (`language`, `country`, `time_zone`, `app_version`, `platform`), from the census.
    public func commonValues(limit: Int) throws -> [String: [String]] {
        try database.read { connection in
            var values: [String: [String]] = [:]
            for column in ["language", "country", "time_zone", "app_version", "platform"] {
                values[column] = try DeviceCensus.top(column, limit: limit, on: connection).map(\.0).filter { $0 != "(unknown)" }
            }
            return values
        }
    }

    /// Marks devices unseen for `days` days stale (the scheduler does it once an hour).
    @discardableResult
    func markStale(unseenForDays days: Int) throws -> Int {
        try database.read { try store.markStale(unseenForDays: days, on: $0) }
    }

    /// Moves the changes of devices written since into the counts segment reach reads (the
    /// scheduler does it at each poll, an import at its end); returns the changes folded.
    @discardableResult
    func foldCensus() throws -> Int {
        try database.read { try DeviceCensus.fold(on: $0) }
    }

    /// Imports devices from CSV or NDJSON read chunk by chunk from `next` (nil at the end), a
    /// batch at a time, each stored by `DeviceImportWriter` while the next is read: memory stays
    /// bounded whatever the size. Rows with errors are reported by
    /// line and skipped; the others are stored. A line longer than `ImportLimits.lineBytes`, or
    /// ending in a bare CR, or not UTF-8, is refused by its number unread (never held whole). When
    /// `next` fails (an upload broken off), the batches stored before stay stored and
    /// `DeviceImportInterrupted` says how many devices they held.
    public func importDevices(format: DeviceImportFormat, batchSize: Int = 5000, _ nextChunk: () throws -> [UInt8]?) throws -> DeviceImportReport {
        var report = DeviceImportReport()
        // Each batch commits without waiting for its WAL to reach the disk (a flush per batch was a
        // fifth of an import's time); `finish` waits for it once, before anything is reported stored.
        let writer = DeviceImportWriter { [database, store] batch in
            try database.transaction { connection in
                _ = try connection.execute("SET LOCAL synchronous_commit = off")
                let created = try store.upsert(batch.statement, on: connection)
                // Devices that come to match a journey's segment enter it, with their batch.
                try JourneyEvents().devicesStored(batch.tokens, on: connection)
                return created
            }
        }
        var finished = false
        func finish(throwing: Bool) throws -> (created: Int, stored: Int) {
            finished = true
            let outcome = try writer.finish(throwing: throwing)
            if outcome.stored > 0 { try madeDurable() }
            return outcome
        }
        defer { if !finished { _ = try? finish(throwing: false) } }
        func next() throws -> [UInt8]? {
            do {
                return try nextChunk()
            } catch {
                throw DeviceImportInterrupted(storedDevices: (try? finish(throwing: false))?.stored ?? 0, cause: error)
            }
        }
        var batch: [Device] = []
        func flush() throws {
            guard let statement = DeviceStore.upsertStatement(batch) else { return }
            try writer.submit(DeviceImportWriter.Batch(statement: statement, rows: batch.count, tokens: batch.map(\.token)))
            batch.removeAll(keepingCapacity: true)
        }
        func refuse(line: Int, _ error: FieldError) {
            report.rows += 1
            report.fail(line: line, error)
        }
        func take(line: Int, _ document: JSON?) throws {
            guard let document else {
                return refuse(line: line, FieldError(path: "", code: "malformed", message: "the line is not a JSON object"))
            }
            report.rows += 1
            switch Device.parse(document) {
            case .success(let device):
                batch.append(device)
                if batch.count >= batchSize { try flush() }
            case .failure(let errors):
                for error in errors.errors { report.fail(line: line, error) }
            }
        }
        switch format {
        case .csv:
            var reader = CSVRecordReader()
            var layout: DeviceCSVLayout?
            func handle(_ record: ImportLine<[String]>) throws {
                guard let layout else {
                    switch DeviceCSVLayout.header(record) {
                    case .success(let found): layout = found
                    case .failure(let errors): throw AppError.invalid(errors, title: "The CSV file cannot be imported")
                    }
                    return
                }
                switch record.content {
                case .success(let fields):
                    try take(line: record.number, layout.document(fields))
                case .failure(let problem):
                    let column = if case .invalidUTF8(let index?) = problem { layout.name(ofColumn: index) } else { "" }
                    refuse(line: record.number, problem.issue(field: column))
                }
            }
            while let chunk = try next() {
                for record in reader.feed(chunk) { try handle(record) }
            }
            if let last = reader.finish() { try handle(last) }
        case .ndjson:
            var reader = ImportLineReader()
            func handle(_ line: ImportLine<String>) throws {
                switch line.content {
                case .success(let text):
                    try take(line: line.number, try? JSON.parse(text))
                case .failure(let problem):
                    refuse(line: line.number, problem.issue())
                }
            }
            while let chunk = try next() {
                for line in reader.feed(chunk) { try handle(line) }
            }
            for line in reader.finish() { try handle(line) }
        }
        try flush()
        let (created, stored) = try finish(throwing: true)
        // The import's changes into the segment counts now, in one pass (reach reads them meanwhile).
        try foldCensus()
        report.created = created
        report.updated = stored - created
        try database.transaction { connection in
            try WebhookOutbox.enqueue(.importFinished, ["import": [
                "format": .string(format.rawValue), "rows": .number(Double(report.rows)), "created": .number(Double(report.created)),
                "updated": .number(Double(report.updated)), "failed": .number(Double(report.failedRows)),
            ]], on: connection)
        }
        return report
    }

    /// Waits until what this process committed without waiting (an import's batches) is on disk:
    /// a transaction given an id commits with a record of its own, and a commit that waits for its
    /// record waits for everything written before it.
    private func madeDurable() throws {
        try database.transaction { _ = try $0.query("SELECT txid_current()") }
    }

    /// Writes every device as CSV through `write`, a page at a time, with a column for every
    /// property some device has.
    public func exportCSV(_ write: (String) throws -> Void) throws {
        let properties = try database.read { try store.propertyNames(on: $0) }.sorted()
        try write(CSVWriter.row(DeviceCSVLayout.exportHeader(properties: properties)))
        var after: String?
        while true {
            let page = try list(DeviceFilter(), after: after, limit: 5000)
            guard let last = page.last else { return }
            try write(page.map { DeviceCSVLayout.exportRow($0.device, properties: properties) + "\r\n" }.joined())
            after = last.device.token
        }
    }

    public static func checked<T>(_ result: Result<T, ValidationErrors>, title: String = "The device is not valid") throws -> T {
        switch result {
        case .success(let value): return value
        case .failure(let errors): throw AppError.invalid(errors, title: title)
        }
    }
}

public enum DeviceImportFormat: String, Sendable {
    case csv, ndjson
}

/// An import whose input stopped before its end. Devices are stored in batches as they are read,
/// so the batches before the break stay stored (importing the file again only updates them).
public struct DeviceImportInterrupted: Error {
    public var storedDevices: Int
    /// What stopped the input (for an upload, the server's `RequestBodyError`).
    public var cause: any Error
}

/// What an import did: rows read, devices created and updated, and the rows refused, by line.
public struct DeviceImportReport: Sendable, Equatable {
    public var rows = 0
    public var created = 0
    public var updated = 0
    public var failedRows = 0
    /// The first `maximumErrors` problems, each with its line.
    public var errors: [(line: Int, error: FieldError)] = []
    static let maximumErrors = 1000
    var lastFailedLine = 0

    mutating func fail(line: Int, _ error: FieldError) {
        if line != lastFailedLine { failedRows += 1; lastFailedLine = line }
        if errors.count < Self.maximumErrors { errors.append((line, error)) }
    }

    public static func == (lhs: DeviceImportReport, rhs: DeviceImportReport) -> Bool {
        (lhs.rows, lhs.created, lhs.updated, lhs.failedRows) == (rhs.rows, rhs.created, rhs.updated, rhs.failedRows)
            && lhs.errors.elementsEqual(rhs.errors) { $0.line == $1.line && $0.error == $1.error }
    }
}
