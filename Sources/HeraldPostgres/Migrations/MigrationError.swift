/// Why migrating stopped; names the file concerned.
public struct MigrationError: Error, CustomStringConvertible, Sendable {
    public enum Reason: Sendable, Hashable {
        case unreadableDirectory
        case badFileName
        case duplicateVersion
        case gap
        /// An applied migration's file changed.
        case checksumMismatch
        /// An applied migration's file is gone.
        case missingFile
        /// The server refused the migration's SQL (see `postgresError`).
        case failed
    }

    /// Why.
    public var reason: Reason
    /// The migration file concerned, when there is one.
    public var file: String?
    /// What happened, for a person.
    public var message: String
    /// The server's error, when a migration failed to apply.
    public var postgresError: PostgresError?

    init(_ reason: Reason, file: String?, _ message: String, postgresError: PostgresError? = nil) {
        self.reason = reason
        self.file = file
        self.message = message
        self.postgresError = postgresError
    }

    public var description: String {
        guard let postgresError else { return message }
        return "\(message): \(postgresError.description)"
    }
}
