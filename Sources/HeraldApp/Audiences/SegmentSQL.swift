import HeraldCore
import HeraldPostgres

/// A segment rule as a SQL condition over `devices`, with its values as bind parameters: the
/// same rule `SegmentRule.matches` states in Swift (the tests hold the two together).
///
/// The census tables (Migrations/0020) name their columns as `devices` does, so the same condition
/// also reads them, but for the last sighting, kept there as a UTC day (`last_seen_on`).
enum SegmentSQL {
    /// What the condition reads.
    enum Source {
        /// The `devices` table: every condition.
        case devices
        /// `device_census` or `device_property_census`: no property conditions (`DeviceCensus`
        /// takes the one it can answer out of the rule before compiling the rest).
        case census
    }

    /// The condition, numbering its parameters from `firstParameter`; `TRUE` for no rule.
    static func condition(_ rule: SegmentRule?, firstParameter: Int, over source: Source = .devices) -> (sql: String, binds: [PostgresValue]) {
        var binds: [PostgresValue] = []
        func bind(_ value: some PostgresEncodable) -> String {
            binds.append(value.postgresValue)
            return "$\(firstParameter + binds.count - 1)"
        }
        func compile(_ rule: SegmentRule) -> String {
            switch rule {
            case .all(let rules): return "(" + rules.map(compile).joined(separator: " AND ") + ")"
            case .any(let rules): return "(" + rules.map(compile).joined(separator: " OR ") + ")"
            case .condition(let condition): return compileCondition(condition)
            }
        }
        func matchAny(_ field: SegmentField, _ values: [String]) -> String {
            // A language without a region matches its regions ("fa" matches "fa-IR"), through the
            // primary subtag; a tag with a region matches exactly.
            guard field == .language else { return "\(column(field)) = ANY(\(bind(values)))" }
            let primaries = values.filter { !$0.contains("-") }, exact = values.filter { $0.contains("-") }
            // Only the parts that can match, so that the planner sees one index condition.
            let parts = (primaries.isEmpty ? [] : ["language_primary = ANY(\(bind(primaries)))"])
                + (exact.isEmpty ? [] : ["language = ANY(\(bind(exact)))"])
            return parts.isEmpty ? "FALSE" : "(" + parts.joined(separator: " OR ") + ")"
        }
        func compileCondition(_ condition: SegmentCondition) -> String {
            switch condition {
            case .equals(let field, let value): return matchAny(field, [value])
            case .isIn(let field, let values): return matchAny(field, values)
            case .notIn(let field, let values): return "(\(column(field)) IS NOT NULL AND NOT \(matchAny(field, values)))"
            case .appVersionAtLeast(let minimum):
                return "app_version_key >= \(bind("{" + (AppVersion.key(minimum) ?? [0]).map(String.init).joined(separator: ",") + "}"))::integer[]"
            case .lastSeenWithinDays(let days):
                // Whole UTC days, as SegmentRule says: seen today or on one of the `days` days before.
                let firstDay = "(now() AT TIME ZONE 'UTC')::date - \(bind(days))::integer"
                switch source {
                case .devices: return "last_seen_at >= (\(firstDay))::timestamp AT TIME ZONE 'UTC'"
                case .census: return "last_seen_on >= \(firstDay)"
                }
            case .propertyEquals(let name, let value):
                guard source == .devices else { return censusHasNoProperties() }
                return "properties @> \(bind(PostgresJSONB(DeviceStore.propertiesJSON([name: value]))))"
            case .propertyIn(let name, let values):
                guard source == .devices else { return censusHasNoProperties() }
                // One containment a value, so that the properties' GIN index serves each.
                return "(" + values.map { "properties @> \(bind(PostgresJSONB(DeviceStore.propertiesJSON([name: $0]))))" }.joined(separator: " OR ") + ")"
            case .propertyNotIn(let name, let values):
                guard source == .devices else { return censusHasNoProperties() }
                return "(properties ? \(bind(name)) AND NOT (properties ->> \(bind(name)) = ANY(\(bind(values)))))"
            case .propertyExists(let name):
                guard source == .devices else { return censusHasNoProperties() }
                return "properties ? \(bind(name))"
            }
        }
        guard let rule else { return ("TRUE", []) }
        return (compile(rule), binds)
    }

    /// Never asked: `DeviceCensus` counts rules with other property conditions from `devices`.
    private static func censusHasNoProperties() -> String {
        assertionFailure("a property condition compiled against the census")
        return "FALSE"
    }

    static func column(_ field: SegmentField) -> String {
        switch field {
        case .platform: "platform"
        case .language: "language"
        case .country: "country"
        case .appID: "app_id"
        case .appVersion: "app_version"
        case .timeZone: "time_zone"
        }
    }
}
