import Foundation

/// An error from PostgreSQL, libpq, or this module's pool.
///
/// `description` is safe for logs: it names the SQLSTATE and the server's primary message, but
/// leaves out the server's DETAIL (which quotes row values, e.g. `Key (email)=(…)`) and the values
/// in data-exception messages. `detailedDescription` has everything.
public struct PostgresError: Error, CustomStringConvertible, Sendable {
    /// Where the error came from.
    public enum Kind: Sendable, Hashable {
        /// The connection could not be opened, or it broke.
        case connection
        /// The server refused a statement (see `sqlState`).
        case server
        /// No pooled connection became free in time.
        case poolExhausted
        /// The module was used in a way it cannot serve (a closed connection, NUL in text…).
        case misuse
    }

    /// Where the error came from.
    public var kind: Kind
    /// The five-character SQLSTATE, when the server sent one.
    public var sqlState: String?
    /// The server's primary message, or libpq's message.
    public var message: String
    /// The server's DETAIL (may quote data).
    public var detail: String?
    /// The server's HINT.
    public var hint: String?
    /// The constraint a violation concerns.
    public var constraintName: String?
    /// The table an error concerns.
    public var tableName: String?
    /// The column an error concerns.
    public var columnName: String?
    /// The full text of `PQerrorMessage`/`PQresultErrorMessage`, as libpq wrote it.
    public var libpqMessage: String?

    /// An error with the given parts.
    public init(kind: Kind, message: String, sqlState: String? = nil, libpqMessage: String? = nil) {
        self.kind = kind
        self.message = message
        self.sqlState = sqlState
        self.libpqMessage = libpqMessage
    }

    /// The SQLSTATE as a `Code`, to compare with the named constants: `error.code == .uniqueViolation`.
    public var code: Code? { sqlState.map(Code.init(rawValue:)) }

    /// True when the connection is gone or unusable: refused, lost, broken, or ended by the
    /// server's shutdown. A pool discards such a connection and opens a fresh one.
    public var isConnectionFailure: Bool {
        if kind == .connection { return true }
        guard let sqlState else { return false }
        return sqlState.hasPrefix("08") || ["57P01", "57P02", "57P03", "53300"].contains(sqlState)
    }

    public var description: String {
        switch kind {
        case .server:
            var text = "PostgreSQL error"
            if let sqlState { text += " \(sqlState)" }
            return text + ": " + redactedMessage
        case .connection:
            return "PostgreSQL connection failed: " + firstLine(message)
        case .poolExhausted, .misuse:
            return message
        }
    }

    /// Everything known, DETAIL and libpq's full text included. May contain data; keep out of
    /// logs that must not hold personal data.
    public var detailedDescription: String {
        var parts = [description]
        if let detail { parts.append("DETAIL: \(detail)") }
        if let hint { parts.append("HINT: \(hint)") }
        if let libpqMessage, !libpqMessage.isEmpty { parts.append("libpq: \(libpqMessage)") }
        return parts.joined(separator: "\n")
    }

    /// Data exceptions (class 22) quote the offending value: `invalid input syntax for type
    /// integer: "abc"`. The value may be a bind parameter, so it stays out of `description`.
    private var redactedMessage: String {
        guard sqlState?.hasPrefix("22") == true, let range = message.range(of: ": \"") else { return message }
        return message[..<range.lowerBound] + " (value redacted)"
    }

    private func firstLine(_ text: String) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? trimmed
    }
}

extension PostgresError {
    /// A SQLSTATE code with names for the ones an application reacts to.
    public struct Code: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
        /// The five-character code.
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(stringLiteral value: String) { self.rawValue = value }
        public var description: String { rawValue }

        public static let uniqueViolation: Code = "23505"
        /// Text PostgreSQL cannot store, such as U+0000 in a text value.
        public static let characterNotInRepertoire: Code = "22021"
        public static let foreignKeyViolation: Code = "23503"
        public static let notNullViolation: Code = "23502"
        public static let checkViolation: Code = "23514"
        public static let exclusionViolation: Code = "23P01"
        public static let serializationFailure: Code = "40001"
        public static let deadlockDetected: Code = "40P01"
        public static let lockNotAvailable: Code = "55P03"
        public static let queryCanceled: Code = "57014"
        public static let adminShutdown: Code = "57P01"
        public static let crashShutdown: Code = "57P02"
        public static let cannotConnectNow: Code = "57P03"
        public static let tooManyConnections: Code = "53300"
        public static let connectionException: Code = "08000"
        public static let connectionFailure: Code = "08006"
        public static let undefinedTable: Code = "42P01"
        public static let undefinedColumn: Code = "42703"
        public static let undefinedFunction: Code = "42883"
        public static let duplicateTable: Code = "42P07"
        public static let duplicateObject: Code = "42710"
        public static let syntaxError: Code = "42601"
        public static let insufficientPrivilege: Code = "42501"
        public static let invalidTextRepresentation: Code = "22P02"
        public static let numericValueOutOfRange: Code = "22003"
        public static let stringDataRightTruncation: Code = "22001"
        public static let invalidParameterValue: Code = "22023"
    }
}
