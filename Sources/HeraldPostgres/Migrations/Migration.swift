import HeraldCrypto
import Foundation

/// A migration file, `NNNN_name.sql`: plain SQL, applied once, in number order.
public struct Migration: Sendable, Hashable {
    /// The number at the start of the file name.
    public var version: Int
    /// The rest of the file name, without `.sql`.
    public var name: String
    /// The file's name (`0001_init.sql`).
    public var fileName: String
    /// The file's SQL.
    public var sql: String
    /// SHA-256 of the file's bytes, in hex.
    public var checksum: String

    /// Reads and checks the migrations of `directory`: every `.sql` file must be named
    /// `NNNN_name.sql`, and the numbers must run 1, 2, 3… without gaps or duplicates.
    /// Other files (a README) are ignored.
    static func load(from directory: String) throws -> [Migration] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw MigrationError(.unreadableDirectory, file: nil, "cannot read the migrations folder \(directory): \(error.localizedDescription)")
        }
        var migrations: [Migration] = []
        for fileName in names where fileName.hasSuffix(".sql") {
            guard let (version, name) = parse(fileName: fileName) else {
                throw MigrationError(.badFileName, file: fileName, "\(fileName) in \(directory) is not named NNNN_name.sql")
            }
            let path = (directory as NSString).appendingPathComponent(fileName)
            guard let data = FileManager.default.contents(atPath: path) else {
                throw MigrationError(.unreadableDirectory, file: fileName, "cannot read \(path)")
            }
            let bytes = [UInt8](data)
            migrations.append(Migration(
                version: version, name: name, fileName: fileName,
                sql: String(decoding: bytes, as: UTF8.self), checksum: SHA256.hex(bytes)))
        }
        migrations.sort { ($0.version, $0.fileName) < ($1.version, $1.fileName) }
        for (index, migration) in migrations.enumerated() {
            if index > 0, migrations[index - 1].version == migration.version {
                throw MigrationError(
                    .duplicateVersion, file: migration.fileName,
                    "\(migrations[index - 1].fileName) and \(migration.fileName) have the same number \(migration.version)")
            }
            guard migration.version == index + 1 else {
                let previous = index == 0 ? "the start" : migrations[index - 1].fileName
                throw MigrationError(
                    .gap, file: migration.fileName,
                    "migration number \(index + 1) is missing between \(previous) and \(migration.fileName)")
            }
        }
        return migrations
    }

    /// `0012_add_images.sql` → (12, "add_images").
    static func parse(fileName: String) -> (Int, String)? {
        guard fileName.hasSuffix(".sql") else { return nil }
        let stem = fileName.dropLast(4)
        guard let underscore = stem.firstIndex(of: "_") else { return nil }
        let digits = stem[..<underscore], name = stem[stem.index(after: underscore)...]
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber),
              let version = Int(digits), version > 0,
              !name.isEmpty,
              name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") })
        else { return nil }
        return (version, String(name))
    }
}

/// A migration recorded in `schema_migrations`.
public struct AppliedMigration: Sendable, Hashable {
    public var version: Int
    public var name: String
    public var checksum: String
    public var appliedAt: Date
}

/// Where one migration stands against a database.
public struct MigrationStatus: Sendable, Hashable {
    public enum State: Sendable, Hashable {
        /// Applied, and the file is unchanged.
        case applied
        /// In the folder, not yet applied.
        case pending
        /// Applied, but the file has changed since.
        case changed
        /// Recorded as applied, but no file has its number.
        case fileMissing
    }

    public var version: Int
    public var name: String
    public var state: State
    /// The file, when there is one.
    public var migration: Migration?
    /// The record, when it was applied.
    public var applied: AppliedMigration?
}
