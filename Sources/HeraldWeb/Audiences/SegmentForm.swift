import Foundation
import HeraldApp
import HeraldCore
import HeraldJSON

/// The segment editor's form: a name, conditions in rows combined with all-of or any-of, and,
/// for rules the rows cannot say (groups inside groups), the rule as JSON. Pure: fields in,
/// contract JSON out, and the contract's errors put back beside their row.
struct SegmentForm: Sendable {
    struct Row: Sendable {
        var field = "", op = "is", name = "", value = ""
        var isBlank: Bool { field.isEmpty }
    }

    /// Rows a rule may have in the editor (a longer rule is edited as JSON).
    static let maximumRows = 20
    var name = ""
    var combine = "all"
    /// One row to start with; "Add a condition" adds one, each row's "Remove" removes it.
    var rows = [Row()]
    var ruleJSON = ""

    init() {}

    init(fields: [(name: String, value: String)]) {
        func value(_ name: String) -> String { fields.last { $0.name == name }?.value ?? "" }
        name = value("name")
        combine = value("combine") == "any" ? "any" : "all"
        ruleJSON = value("rule_json").replacingOccurrences(of: "\r\n", with: "\n")
        let posted = Set(fields.map(\.name))
        rows = (0..<Self.maximumRows).filter { posted.contains("field_\($0)") }.map { index in
            Row(field: value("field_\(index)"), op: value("op_\(index)").isEmpty ? "is" : value("op_\(index)"),
                name: value("name_\(index)"), value: value("value_\(index)"))
        }
        if rows.isEmpty { rows = [Row()] }
    }

    /// A row added or removed without saving (the editor's buttons, with or without script);
    /// false for any other action.
    mutating func apply(action: String) -> Bool {
        if action == "add_row" {
            if rows.count < Self.maximumRows { rows.append(Row()) }
            return true
        }
        guard action.hasPrefix("remove_row:"), let index = Int(action.dropFirst("remove_row:".count)) else { return false }
        if rows.indices.contains(index) { rows.remove(at: index) }
        if rows.isEmpty { rows = [Row()] }
        return true
    }

    /// The form showing a saved segment: its rule in rows when they can say it, else as JSON.
    init(segment: Segment) {
        name = segment.name
        var shown = false
        if case .all(let conditions) = segment.rule { shown = fill(conditions, combine: "all") }
        if case .any(let conditions) = segment.rule { shown = fill(conditions, combine: "any") }
        if !shown { ruleJSON = segment.rule.toJSON().prettyString() }
    }

    mutating func fill(_ rules: [SegmentRule], combine: String) -> Bool {
        guard rules.count <= Self.maximumRows else { return false }
        var filled: [Row] = []
        for rule in rules {
            guard case .condition(let condition) = rule else { return false }
            filled.append(Self.row(condition))
        }
        self.combine = combine
        rows = filled.isEmpty ? [Row()] : filled
        return true
    }

    static func row(_ condition: SegmentCondition) -> Row {
        switch condition {
        case .equals(let field, let value): Row(field: field.rawValue, op: "is", value: value)
        case .isIn(let field, let values): Row(field: field.rawValue, op: "is_one_of", value: values.joined(separator: ", "))
        case .notIn(let field, let values): Row(field: field.rawValue, op: "is_not_one_of", value: values.joined(separator: ", "))
        case .appVersionAtLeast(let minimum): Row(field: "app_version", op: "at_least", value: minimum)
        case .lastSeenWithinDays(let days): Row(field: "last_seen", op: "within_days", value: String(days))
        case .propertyEquals(let name, let value): Row(field: "property", op: "is", name: name, value: value)
        case .propertyExists(let name): Row(field: "property", op: "exists", name: name)
        }
    }

    /// `{"name", "rule"}` as the API takes it, and for each condition of the rule the row it came from.
    func contractJSON() -> (json: JSON, rowOfCondition: [Int]) {
        var object: JSONObject = ["name": .string(name)]
        if !ruleJSON.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            object["rule"] = (try? JSON.parse(ruleJSON)) ?? .string(ruleJSON)
            return (.object(object), [])
        }
        var conditions: [JSON] = [], rowOf: [Int] = []
        for (index, row) in rows.enumerated() where !row.isBlank {
            rowOf.append(index)
            conditions.append(Self.condition(row))
        }
        object["rule"] = [combine: .array(conditions)]
        return (.object(object), rowOf)
    }

    static func condition(_ row: Row) -> JSON {
        let list = JSON.array(row.value.split(separator: ",").map { JSON.string($0.trimmingCharacters(in: .whitespaces)) })
        switch (row.field, row.op) {
        case ("last_seen", _): return ["last_seen_within_days": Int(row.value.trimmingCharacters(in: .whitespaces)).map { .number(Double($0)) } ?? .string(row.value)]
        case ("property", "exists"): return ["property": .string(row.name), "exists": true]
        case ("property", _): return ["property": .string(row.name), "equals": .string(row.value)]
        case (_, "is_one_of"): return ["field": .string(row.field), "in": list]
        case (_, "is_not_one_of"): return ["field": .string(row.field), "not_in": list]
        case (_, "at_least"): return ["field": .string(row.field), "at_least": .string(row.value)]
        default: return ["field": .string(row.field), "equals": .string(row.value)]
        }
    }

    /// Where a contract error belongs: `row_N` for a condition's, else `name` or `rule_json`.
    func field(for path: String, rowOfCondition: [Int]) -> String {
        if path == "name" { return "name" }
        let prefix = "rule.\(combine)["
        if path.hasPrefix(prefix), let close = path.firstIndex(of: "]"),
           let index = Int(path[path.index(path.startIndex, offsetBy: prefix.count)..<close]), rowOfCondition.indices.contains(index) {
            return "row_\(rowOfCondition[index])"
        }
        return ruleJSON.isEmpty && path == "rule.\(combine)" ? "row_0" : "rule_json"
    }
}
