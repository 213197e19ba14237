import HeraldCore
import HeraldPostgres

/// Segment reach from the census of active devices (Migrations/0020_device_census.sql) instead
/// of from `devices`: the census holds how many active devices share each combination of the
/// attributes a segment names, so a reach sums tens of thousands of rows whatever the registry's
/// size, and stays exact (triggers append each change in the transaction that makes it, and
/// `fold` moves the changes into the counts; a reach reads both).
///
/// Which rules it answers:
/// - every rule without property conditions, from `device_census`;
/// - a rule whose property conditions are one of its conjuncts (`all` of it and the others), on
///   one property name: `equals` one value, `exists`, or `any` of those on that name ("city is
///   Tehran or Shiraz"), and no "last seen", from `device_property_census`, the census per
///   property name and value. A device has one value per name, so the rows of those values add
///   up to the devices. It has no day: with one, it grew by a row per device and property.
/// Others (two property names, a property condition under `any` with other fields, or beside a
/// "last seen") return nil,
/// and the reach is counted from `devices`, exactly and at the old cost.
enum DeviceCensus {
    /// The columns `device_property_census` shares with `devices`.
    static let propertyDimensions = "platform, app_id, app_version, app_version_key, language, language_primary, country, time_zone"
    /// The columns `device_census` shares with `devices`, and the last sighting as a UTC day.
    static let dimensions = propertyDimensions + ", last_seen_on"

    /// Folds the changes committed so far into the counts (Migrations/0020); 0 when another
    /// process is folding them.
    static func fold(on connection: PostgresConnection) throws -> Int {
        let folded = try connection.query("SELECT device_census_fold()").first?.decode(Int.self, at: 0) ?? 0
        // The folded rows are dead until a vacuum, and every reach and fold read them: after a
        // million-device import, 26 ms of each reach and seconds of the next fold were dead rows.
        // A vacuum of a table that holds none alive gives its pages back at once.
        if folded > 0 { try connection.executeScript("VACUUM device_census_changes") }
        return folded
    }

    /// The query counting the active devices `rule` matches (all when nil), or nil when the census
    /// cannot say.
    static func reach(_ rule: SegmentRule?) -> PostgresQuery? {
        guard let rule else { return plain(nil) }
        let parts = conjuncts(rule)
        let propertyParts = parts.filter(\.namesAProperty)
        if propertyParts.isEmpty { return plain(rule) }
        guard propertyParts.count == 1, let property = PropertyTest(propertyParts[0]) else { return nil }
        let rest = parts.filter { !$0.namesAProperty }
        guard !rest.contains(where: \.namesLastSeen) else { return nil }
        return perProperty(property, rest.isEmpty ? nil : .all(rest))
    }

    /// A sum over `device_census` and the changes not yet folded into it.
    private static func plain(_ rule: SegmentRule?) -> PostgresQuery {
        let condition = SegmentSQL.condition(rule, firstParameter: 1, over: .census)
        return PostgresQuery(unsafeSQL: """
            SELECT coalesce(sum(n), 0)::bigint FROM \(counted) AS census
            WHERE \(condition.sql)
            """, binds: condition.binds)
    }

    /// The census rows with the changes not yet folded in, as one relation of `dimensions` and `n`.
    static let counted = """
        (SELECT \(dimensions), n FROM device_census
         UNION ALL
         SELECT \(propertyDimensions), (last_seen_at AT TIME ZONE 'UTC')::date, n FROM device_census_changes)
        """

    /// The active devices by the values of `column` (a census column), most first, at most `limit`.
    static func top(_ column: String, limit: Int, on connection: PostgresConnection) throws -> [(String, Int)] {
        try connection.query(PostgresQuery(unsafeSQL: """
            SELECT coalesce(\(column), '(unknown)') AS v, sum(n)::bigint AS n FROM \(counted) AS census
            GROUP BY v HAVING sum(n) > 0 ORDER BY n DESC, v LIMIT $1
            """, binds: [limit.postgresValue])).map { try $0.decode((String, Int).self, columns: "v", "n") }
    }

    /// The time zones active devices have.
    static func timeZones(on connection: PostgresConnection) throws -> [String] {
        try connection.query(PostgresQuery(unsafeSQL: """
            SELECT time_zone FROM \(counted) AS census WHERE time_zone IS NOT NULL
            GROUP BY time_zone HAVING sum(n) > 0 ORDER BY 1
            """)).map { try $0.decode(String.self, at: 0) }
    }

    /// A sum over the property's rows of `device_property_census` and the changes not yet folded in.
    private static func perProperty(_ property: PropertyTest, _ rule: SegmentRule?) -> PostgresQuery {
        let condition = SegmentSQL.condition(rule, firstParameter: 1, over: .census)
        var binds = condition.binds
        binds.append(property.name.postgresValue)
        var filter = "name = $\(binds.count)"
        if let values = property.values {
            binds.append(values.postgresValue)
            filter += " AND value = ANY($\(binds.count))"
        }
        return PostgresQuery(unsafeSQL: """
            SELECT coalesce(sum(n), 0)::bigint FROM (
                SELECT \(propertyDimensions), n FROM device_property_census WHERE \(filter)
                UNION ALL
                SELECT \(propertyDimensions), n FROM device_census_changes, jsonb_each_text(properties) AS p(name, value)
                WHERE \(filter)) AS census
            WHERE \(condition.sql)
            """, binds: binds)
    }

    /// The rules a device must all match: `all` groups flattened (and a one-element `any`).
    static func conjuncts(_ rule: SegmentRule) -> [SegmentRule] {
        switch rule {
        case .all(let rules): rules.flatMap(conjuncts)
        case .any(let rules) where rules.count == 1: conjuncts(rules[0])
        default: [rule]
        }
    }

    /// One property conjunct the property census answers: the property `name` with one of `values`
    /// (any value when nil: the property exists).
    struct PropertyTest {
        var name: String
        var values: [String]?

        init?(_ rule: SegmentRule) {
            switch rule {
            case .condition(.propertyEquals(let name, let value)): (self.name, values) = (name, [value])
            case .condition(.propertyIn(let name, let list)): (self.name, values) = (name, list)
            case .condition(.propertyExists(let name)): (self.name, values) = (name, nil)
            case .any(let rules):
                let tests = rules.compactMap(PropertyTest.init)
                guard let first = tests.first, tests.count == rules.count, tests.allSatisfy({ $0.name == first.name }) else { return nil }
                name = first.name
                // Any value, when one of them is "exists"; else every value named.
                values = tests.contains { $0.values == nil } ? nil : tests.flatMap { $0.values ?? [] }
            default: return nil
            }
        }
    }
}

extension SegmentRule {
    /// Whether a property condition is in this rule.
    var namesAProperty: Bool {
        switch self {
        case .all(let rules), .any(let rules): rules.contains(where: \.namesAProperty)
        case .condition(.propertyEquals), .condition(.propertyIn), .condition(.propertyNotIn), .condition(.propertyExists): true
        case .condition: false
        }
    }

    /// Whether a "last seen" condition is in this rule.
    var namesLastSeen: Bool {
        switch self {
        case .all(let rules), .any(let rules): rules.contains(where: \.namesLastSeen)
        case .condition(.lastSeenWithinDays): true
        case .condition: false
        }
    }
}
