import HeraldCore
import HeraldPostgres

extension PostgresQuery.StringInterpolation {
    /// Delivery statuses written into the statement as constants rather than bound: a partial
    /// index whose predicate names them (`WHERE status IN ('pending', 'retrying')`) can then serve
    /// it, which a bound array cannot promise. The values are the enum's own, never input.
    mutating func appendInterpolation<Status: RawRepresentable>(constants statuses: [Status]) where Status.RawValue == String {
        appendLiteral(statuses.map { "'\($0.rawValue)'" }.joined(separator: ", "))
    }
}
