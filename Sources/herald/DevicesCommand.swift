#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Foundation
import HeraldApp

extension DeviceImportFormat: ExpressibleByArgument {}

/// `herald devices …`: the device registry from the command line, for files of any size.
struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices", abstract: "Import and export the device registry.",
        subcommands: [Import.self, Export.self])

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Import devices from a CSV or NDJSON file (- for stdin), read in chunks: any size, bounded memory.",
            discussion: """
                CSV needs a header row naming token and platform, and any of kind (token, or fid when the token column \
                holds Firebase installation IDs), app_id, app_version, language, country, time_zone, last_seen_at; other \
                columns are properties. The format comes from the file's name (.csv; \
                .ndjson or .jsonl) or from --format, which standard input and any other name need.

                Exit status: 0 when every row was stored; 2 when the file was read but some rows were refused \
                (each is printed with its line, the rest are stored); 1 when nothing could be imported.
                """)
        @Argument(help: "The file, or - for standard input.") var file: String
        @Option(help: "csv or ndjson (by default from the file's name: .csv, .ndjson, .jsonl).") var format: DeviceImportFormat?

        /// The format named by --format, else by the file's extension; nil when neither says.
        static func format(of file: String, given: DeviceImportFormat?) -> DeviceImportFormat? {
            if let given { return given }
            let name = file.lowercased()
            if name.hasSuffix(".csv") { return .csv }
            if name.hasSuffix(".ndjson") || name.hasSuffix(".jsonl") { return .ndjson }
            return nil
        }

        func validate() throws {
            guard Self.format(of: file, given: format) != nil else {
                throw ValidationError(file == "-"
                    ? "standard input has no name to tell its format by: add --format csv or --format ndjson"
                    : "cannot tell the format of \(file) from its name (.csv, .ndjson or .jsonl): add --format csv or --format ndjson")
            }
        }

        func run() throws {
            guard let chosen = Self.format(of: file, given: format) else { throw ExitCode.validationFailure }
            let descriptor = file == "-" ? STDIN_FILENO : open(file, O_RDONLY)
            guard descriptor >= 0 else {
                throw CommandFailure("cannot open \(file): \(String(cString: strerror(errno)))")
            }
            defer { if file != "-" { close(descriptor) } }
            let (database, pool) = try preparedDatabase()
            defer { pool.close() }
            var buffer = [UInt8](repeating: 0, count: 1 << 20)
            let report = try reportingFailures {
                try DeviceService(database: database).importDevices(format: chosen) {
                    let count = read(descriptor, &buffer, buffer.count)
                    guard count >= 0 else { throw ReadFailure(file: file, reason: String(cString: strerror(errno))) }
                    return count > 0 ? Array(buffer[..<count]) : nil
                }
            }
            for (line, error) in report.errors { printError("line \(line): \(error.path): \(error.message)") }
            print(Self.summary(rows: report.rows, created: report.created, updated: report.updated, refused: report.failedRows))
            // 2, not 1: the file was read and the rest stored; the refused rows are listed above.
            if report.failedRows > 0 { throw ExitCode(2) }
        }

        /// `1 row: 1 device created, 0 updated, 0 refused`.
        static func summary(rows: Int, created: Int, updated: Int, refused: Int) -> String {
            "\(rows) \(rows == 1 ? "row" : "rows"): \(created) \(created == 1 ? "device" : "devices") created, \(updated) updated, \(refused) refused"
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Write every device as CSV to standard output.")
        func run() throws {
            let (database, pool) = try preparedDatabase()
            defer { pool.close() }
            try reportingFailures {
                try DeviceService(database: database).exportCSV { FileHandle.standardOutput.write(Data($0.utf8)) }
            }
        }
    }
}

struct ReadFailure: Error, CustomStringConvertible {
    var file: String
    var reason: String
    var description: String { "cannot read \(file): \(reason)" }
}
