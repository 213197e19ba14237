import Foundation
import HeraldApp
import HeraldCore
import HeraldJSON

/// The segment editor's form: a name, conditions in rows, the rows in groups (each all-of or
/// any-of) combined all-of or any-of ("(language fa or he) and country IR"), and, for rules the
/// groups cannot say (groups inside groups), the rule as JSON. Pure: fields in, contract JSON
/// out, and the contract's errors put back beside their row.
struct SegmentForm: Sendable {
    struct Row: Sendable {
        var field = "", op = "is", name = "", value = ""
        /// The group the row is in (0 when there is one).
        var group = 0
        var isBlank: Bool { field.isEmpty }
    }

    /// Rows a rule may have in the editor (a longer rule is edited as JSON).
    static let maximumRows = 20
    var name = ""
    var combine = "all"
    /// One row to start with; "Add a condition" adds one, each row's "Remove" removes it.
    var rows = [Row()]
    /// How each group combines its rows ("all" or "any"); the groups combine by `combine`.
    var groupCombines = ["all"]
    var ruleJSON = ""

    static let maximumGroups = 10

    init() {}

    init(fields: [(name: String, value: String)]) {
        func value(_ name: String) -> String { fields.last { $0.name == name }?.value ?? "" }
        name = value("name")
        combine = value("combine") == "any" ? "any" : "all"
        ruleJSON = value("rule_json").replacingOccurrences(of: "\r\n", with: "\n")
        let posted = Set(fields.map(\.name))
        rows = (0..<Self.maximumRows).filter { posted.contains("field_\($0)") }.map { index in
            Row(field: value("field_\(index)"), op: value("op_\(index)").isEmpty ? "is" : value("op_\(index)"),
                name: value("name_\(index)"), value: value("value_\(index)"),
                group: min(max(Int(value("group_\(index)")) ?? 0, 0), Self.maximumGroups - 1))
        }
        if rows.isEmpty { rows = [Row()] }
        let groups = max((rows.map(\.group).max() ?? 0) + 1, (0..<Self.maximumGroups).filter { posted.contains("group_combine_\($0)") }.count)
        groupCombines = (0..<groups).map { value("group_combine_\($0)") == "any" ? "any" : "all" }
        compactGroups()
    }

    /// Groups renumbered in order of their first row, empty ones dropped (a removed row's).
    mutating func compactGroups() {
        var order: [Int] = []
        for row in rows where !order.contains(row.group) { order.append(row.group) }
        let combines = order.map { groupCombines.indices.contains($0) ? groupCombines[$0] : "all" }
        for index in rows.indices { rows[index].group = order.firstIndex(of: rows[index].group) ?? 0 }
        // Rows of one group stay together, in their order.
        rows = rows.enumerated().sorted { ($0.element.group, $0.offset) < ($1.element.group, $1.offset) }.map(\.element)
        groupCombines = combines.isEmpty ? ["all"] : combines
    }

    /// A row added or removed without saving (the editor's buttons, with or without script);
    /// false for any other action.
    mutating func apply(action: String) -> Bool {
        if action == "add_row" || action.hasPrefix("add_row:") {
            let group = Int(action.dropFirst("add_row:".count)) ?? (groupCombines.count - 1)
            if rows.count < Self.maximumRows { rows.append(Row(group: min(max(group, 0), groupCombines.count - 1))) }
        } else if action == "add_group" {
            if rows.count < Self.maximumRows && groupCombines.count < Self.maximumGroups {
                groupCombines.append("all")
                rows.append(Row(group: groupCombines.count - 1))
            }
        } else if action.hasPrefix("remove_row:"), let index = Int(action.dropFirst("remove_row:".count)) {
            if rows.indices.contains(index) { rows.remove(at: index) }
            if rows.isEmpty { rows = [Row()] }
        } else {
            return false
        }
        compactGroups()
        return true
    }

    /// The form showing a saved segment: its rule in rows when they can say it, else as JSON.
    init(segment: Segment) {
        name = segment.name
        var shown = false
        if case .all(let children) = segment.rule { shown = fill(children, combine: "all") }
        if case .any(let children) = segment.rule { shown = fill(children, combine: "any") }
        if !shown { ruleJSON = segment.rule.toJSON().prettyString() }
    }

    /// The rows of a rule of conditions (one group), or of conditions and groups of conditions
    /// (a group each); false for deeper rules, which the JSON field shows.
    mutating func fill(_ children: [SegmentRule], combine: String) -> Bool {
        var filled: [Row] = [], combines: [String] = []
        let flat = children.allSatisfy { if case .condition = $0 { true } else { false } }
        for child in children {
            switch child {
            case .condition(let condition):
                if !flat || combines.isEmpty { combines.append("all") }
                var row = Self.row(condition)
                row.group = combines.count - 1
                filled.append(row)
            case .all(let inner), .any(let inner):
                combines.append({ if case .any = child { "any" } else { "all" } }())
                for rule in inner {
                    guard case .condition(let condition) = rule else { return false }
                    var row = Self.row(condition)
                    row.group = combines.count - 1
                    filled.append(row)
                }
            }
        }
        guard filled.count <= Self.maximumRows, combines.count <= Self.maximumGroups else { return false }
        self.combine = combine
        rows = filled.isEmpty ? [Row()] : filled
        groupCombines = combines.isEmpty ? ["all"] : combines
        return true
    }

    static func row(_ condition: SegmentCondition) -> Row {
        switch condition {
        case .equals(let field, let value): Row(field: field.rawValue, op: "is", value: value)
        case .isIn(let field, let values): Row(field: field.rawValue, op: "is_one_of", value: values.joined(separator: ", "))
        case .notIn(let field, let values) where values.count == 1: Row(field: field.rawValue, op: "is_not", value: values[0])
        case .notIn(let field, let values): Row(field: field.rawValue, op: "is_not_one_of", value: values.joined(separator: ", "))
        case .appVersionAtLeast(let minimum): Row(field: "app_version", op: "at_least", value: minimum)
        case .lastSeenWithinDays(let days): Row(field: "last_seen", op: "within_days", value: String(days))
        case .propertyEquals(let name, let value): Row(field: "property", op: "is", name: name, value: value)
        case .propertyIn(let name, let values): Row(field: "property", op: "is_one_of", name: name, value: values.joined(separator: ", "))
        case .propertyNotIn(let name, let values) where values.count == 1: Row(field: "property", op: "is_not", name: name, value: values[0])
        case .propertyNotIn(let name, let values): Row(field: "property", op: "is_not_one_of", name: name, value: values.joined(separator: ", "))
        case .propertyExists(let name): Row(field: "property", op: "exists", name: name)
        }
    }

    /// `{"name", "rule"}` as the API takes it, and for each condition of the rule (by its path
    /// in the rule) the row it came from. One group is the groups' combination of its rows; with
    /// several, a group of one row is that condition, a group of more its own all-of or any-of.
    func contractJSON() -> (json: JSON, rowOfPath: [String: Int]) {
        var object: JSONObject = ["name": .string(name)]
        if !ruleJSON.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            object["rule"] = (try? JSON.parse(ruleJSON)) ?? .string(ruleJSON)
            return (.object(object), [:])
        }
        let filled = rows.enumerated().filter { !$0.element.isBlank }
        let groups = Dictionary(grouping: filled, by: \.element.group).sorted { $0.key < $1.key }.map(\.value)
        var children: [JSON] = [], rowOf: [String: Int] = [:]
        let top = "rule.\(combine)"
        if groups.count <= 1 {
            for (index, row) in filled {
                rowOf["\(top)[\(children.count)]"] = index
                children.append(Self.condition(row))
            }
        } else {
            for group in groups {
                let path = "\(top)[\(children.count)]"
                if group.count == 1 {
                    rowOf[path] = group[0].offset
                    children.append(Self.condition(group[0].element))
                } else {
                    let inner = groupCombines.indices.contains(group[0].element.group) ? groupCombines[group[0].element.group] : "all"
                    for (position, entry) in group.enumerated() { rowOf["\(path).\(inner)[\(position)]"] = entry.offset }
                    children.append([inner: .array(group.map { Self.condition($0.element) })])
                }
            }
        }
        object["rule"] = [combine: .array(children)]
        return (.object(object), rowOf)
    }

    static func condition(_ row: Row) -> JSON {
        let list = JSON.array(row.value.split(separator: ",").map { JSON.string($0.trimmingCharacters(in: .whitespaces)) })
        switch (row.field, row.op) {
        case ("last_seen", _): return ["last_seen_within_days": Int(row.value.trimmingCharacters(in: .whitespaces)).map { .number(Double($0)) } ?? .string(row.value)]
        case ("property", "exists"): return ["property": .string(row.name), "exists": true]
        case ("property", "is_one_of"): return ["property": .string(row.name), "in": list]
        case ("property", "is_not_one_of"): return ["property": .string(row.name), "not_in": list]
        case ("property", "is_not"): return ["property": .string(row.name), "not_equals": .string(row.value)]
        case ("property", _): return ["property": .string(row.name), "equals": .string(row.value)]
        case (_, "is_one_of"): return ["field": .string(row.field), "in": list]
        case (_, "is_not_one_of"): return ["field": .string(row.field), "not_in": list]
        case (_, "is_not"): return ["field": .string(row.field), "not_equals": .string(row.value)]
        case (_, "at_least"): return ["field": .string(row.field), "at_least": .string(row.value)]
        default: return ["field": .string(row.field), "equals": .string(row.value)]
        }
    }

    /// Where a contract error belongs: `row_N` for a condition's (its path or within it), else
    /// `name` or `rule_json`.
    func field(for path: String, rowOfPath: [String: Int]) -> String {
        if path == "name" { return "name" }
        let owner = rowOfPath.filter { path == $0.key || path.hasPrefix($0.key + ".") || path.hasPrefix($0.key + "[") }
            .max { $0.key.count < $1.key.count }
        if let owner { return "row_\(owner.value)" }
        return ruleJSON.isEmpty && path.hasPrefix("rule.\(combine)") ? "row_0" : "rule_json"
    }
}
