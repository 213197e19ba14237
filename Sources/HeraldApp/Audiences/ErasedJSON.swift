import HeraldJSON
import HeraldPostgres

/// A JSON column whose rows may name a forgotten device, the condition that finds them (`$1` is
/// the device's token or FID; each table has an index for it, migration 0045), and how they are
/// rewritten: parsed, the names taken out (`JSON.forgetting`), written back.
struct ErasedJSON: Sendable {
    var table: String
    var columns: [String]
    /// Whether the columns are text holding JSON (a webhook body, kept as the bytes posted).
    var text = false
    var condition: String

    /// Rewrites every row the condition finds naming `name`, without any of `names`.
    func rewrite(naming name: String, forgetting names: Set<String>, on connection: PostgresConnection) throws {
        let selected = columns.map { "\($0)::text AS \($0)" }.joined(separator: ", ")
        let rows = try connection.query(PostgresQuery(unsafeSQL: "SELECT ctid::text AS row, \(selected) FROM \(table) WHERE \(condition) FOR UPDATE",
                                                      binds: [name.postgresValue]))
        for row in rows {
            var binds: [PostgresValue] = [try row.decode(String.self, column: "row").postgresValue]
            var assignments: [String] = []
            for column in columns {
                guard let stored = try row.decode(String?.self, column: column) else { continue }
                binds.append(try JSON.parse(Array(stored.utf8)).forgetting(names).serializedString().postgresValue)
                assignments.append("\(column) = $\(binds.count)\(text ? "" : "::jsonb")")
            }
            guard !assignments.isEmpty else { continue }
            _ = try connection.execute(PostgresQuery(unsafeSQL: "UPDATE \(table) SET \(assignments.joined(separator: ", ")) WHERE ctid = $1::tid",
                                                     binds: binds))
        }
    }
}

extension JSON {
    /// This value without `names`: a list drops them (a campaign's tokens keep the others), any
    /// other place holding one says `(forgotten)` instead (a recipient of a send's answer).
    func forgetting(_ names: Set<String>) -> JSON {
        switch self {
        case .string(let text) where names.contains(text): .string(DeviceErasure.placeholder)
        case .array(let elements):
            .array(elements.filter { $0.stringValue.map { !names.contains($0) } ?? true }.map { $0.forgetting(names) })
        case .object(let object): .object(JSONObject(object.members.map { ($0.key, $0.value.forgetting(names)) }))
        default: self
        }
    }
}
