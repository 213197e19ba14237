/// SQL text with its bind parameters.
///
/// Interpolating a value appends a placeholder (`$1`, `$2`, …) and records the value as a bind,
/// so values never become SQL text:
///
///     let query: PostgresQuery = "SELECT id FROM users WHERE email = \(email) AND active = \(true)"
///     // sql: "SELECT id FROM users WHERE email = $1 AND active = $2", binds: [email, true]
///
/// SQL built at run time from other sources needs the explicit `init(unsafeSQL:binds:)`.
public struct PostgresQuery: Sendable, Hashable, ExpressibleByStringInterpolation, CustomStringConvertible {
    /// The SQL, with `$n` placeholders.
    public var sql: String
    /// The values of the placeholders, in order.
    public var binds: [PostgresValue]

    /// SQL text given as is, with its binds. The caller vouches that `unsafeSQL` holds no
    /// untrusted text.
    public init(unsafeSQL: String, binds: [PostgresValue] = []) {
        self.sql = unsafeSQL
        self.binds = binds
    }

    /// A literal query with no binds.
    public init(stringLiteral value: String) {
        self.init(unsafeSQL: value)
    }

    /// A query built by interpolation.
    public init(stringInterpolation: StringInterpolation) {
        self.init(unsafeSQL: stringInterpolation.sql, binds: stringInterpolation.binds)
    }

    /// The SQL and the number of binds; bind values are left out so they do not reach logs.
    public var description: String { "\(sql) [\(binds.count) bind\(binds.count == 1 ? "" : "s")]" }

    /// Builds the SQL text and the binds of an interpolated query.
    public struct StringInterpolation: StringInterpolationProtocol {
        var sql: String
        var binds: [PostgresValue]

        public init(literalCapacity: Int, interpolationCount: Int) {
            sql = ""
            sql.reserveCapacity(literalCapacity + interpolationCount * 3)
            binds = []
            binds.reserveCapacity(interpolationCount)
        }

        /// SQL text from the literal.
        public mutating func appendLiteral(_ literal: String) {
            sql += literal
        }

        /// SQL text fixed at compile time (a column list, a lock clause), spliced as is. Only a
        /// `StaticString` is accepted, so text that arrives at run time can never get here.
        public mutating func appendInterpolation(literal: StaticString) {
            sql += literal.description
        }

        /// A bind parameter: appends `$n`.
        public mutating func appendInterpolation<Value: PostgresEncodable>(_ value: Value) {
            binds.append(value.postgresValue)
            sql += "$\(binds.count)"
        }

        /// A bind parameter that may be NULL (typed like `Value`, so `\(name) IS NULL` works).
        public mutating func appendInterpolation<Value: PostgresEncodable>(_ value: Value?) {
            binds.append(value.postgresValue)
            sql += "$\(binds.count)"
        }

        /// A bind parameter already encoded.
        public mutating func appendInterpolation(_ value: PostgresValue) {
            binds.append(value)
            sql += "$\(binds.count)"
        }
    }
}
