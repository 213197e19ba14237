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
            discussion: "CSV needs a header row naming token and platform, and any of app_id, app_version, language, country, time_zone, last_seen_at; other columns are properties.")
        @Argument(help: "The file, or - for standard input.") var file: String
        @Option(help: "csv or ndjson (by default from the file's extension).") var format: DeviceImportFormat?

        func run() throws {
            let chosen = format ?? (file.lowercased().hasSuffix(".csv") ? .csv : .ndjson)
            let descriptor = file == "-" ? STDIN_FILENO : open(file, O_RDONLY)
            guard descriptor >= 0 else {
                print("herald: cannot open \(file): \(String(cString: strerror(errno)))")
                throw ExitCode.failure
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
            print("\(report.rows) rows: \(report.created) devices created, \(report.updated) updated, \(report.failedRows) refused")
            if report.failedRows > 0 { throw ExitCode(2) }
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
