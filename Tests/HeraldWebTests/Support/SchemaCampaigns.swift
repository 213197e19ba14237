import Foundation
import HeraldCore
import HeraldJSON

/// Campaigns generated from the campaign schema Herald publishes (`CampaignSpec.jsonSchema`):
/// every property, nested, at a boundary value where the schema gives one. A property added to
/// the schema later is generated too, without editing this file — unless the schema cannot say
/// what a valid value is (a pattern, a time zone, a free-form block): then `value` names its path
/// in the failure, and a sample goes into `samples`. It cannot slip past.
///
/// One campaign per audience (the schema's `oneOf`); each enum takes its values in turn across
/// the campaigns. Combinations the parser refuses (a time zone list for a segment, a time for a
/// "now" schedule) are left out by the test, path by path, as the API names them; `leaves`
/// says which paths the accepted campaigns must still cover between them.
struct SchemaCampaigns {
    /// Values the schema cannot generate, by path (`[]` for any item of an array, `*` for any
    /// member of a map), and properties a campaign holds one of (the schema says "instead of"):
    /// campaign `i` keeps alternative `i % count` of each set. One file, read by this generator
    /// and the browser's (JavaScript on), so the two round trips generate the same campaigns.
    static let fixture: JSON = {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/campaign-schema-samples.json")
        guard let data = FileManager.default.contents(atPath: path.path), let json = try? JSON.parse(data) else {
            fatalError("cannot read \(path.path)")
        }
        return json
    }()
    static let samples: [String: JSON] = fixture["samples"]?.objectValue.map { Dictionary(uniqueKeysWithValues: $0.map { ($0.key, $0.value) }) } ?? [:]
    static let alternatives: [[String]] = (fixture["alternatives"]?.arrayValue ?? []).map { ($0.arrayValue ?? []).compactMap(\.stringValue) }

    /// A path the generator found no value for.
    struct Unsampled: Error, CustomStringConvertible {
        var path: String
        var description: String { "the campaign schema's \(path) needs a sample value in SchemaCampaigns.samples" }
    }

    let schema = CampaignSpec.jsonSchema
    /// The saved segment a segment campaign names (its id is known only at run time).
    let segmentID: String

    /// The audiences of the schema's `oneOf`, each the name of the property it requires.
    var audiences: [String] {
        (schema["oneOf"]?.arrayValue ?? []).compactMap { $0["required"]?.arrayValue?.first?.stringValue }
    }

    /// Campaign `index`, for `audience`: every property but the other audiences'.
    func campaign(_ index: Int, audience: String) throws -> JSON {
        guard case .object(var campaign) = try value(schema, path: "", turn: index) else { throw Unsampled(path: "(root)") }
        for other in audiences where other != audience { campaign[other] = nil }
        var generated = JSON.object(campaign)
        for set in Self.alternatives {
            for (position, path) in set.enumerated() where position != index % set.count { _ = generated.remove(path: path) }
        }
        return generated
    }

    /// The paths of the schema's values (objects' properties, recursively; a map or a free-form
    /// object is one leaf): what the accepted campaigns must hold between them.
    var leaves: [String] { Self.leaves(schema, path: "") }

    private static func leaves(_ schema: JSON, path: String) -> [String] {
        if let properties = schema["properties"]?.objectValue, !properties.isEmpty {
            return properties.keys.sorted().flatMap { leaves(properties[$0]!, path: join(path, $0)) }
        }
        if schema["type"] == "array", let items = schema["items"], items["properties"] != nil {
            return leaves(items, path: path + "[]")
        }
        return [path]
    }

    private static func join(_ path: String, _ key: String) -> String { path.isEmpty ? key : path + "." + key }

    /// The generated value at `path` (array items are `path[]`).
    private func value(_ schema: JSON, path: String, turn: Int) throws -> JSON {
        if path == "segment" { return .string(segmentID) }
        if let sample = Self.samples[path] { return sample }
        if let choices = schema["enum"]?.arrayValue, !choices.isEmpty { return choices[turn % choices.count] }
        switch schema["type"]?.stringValue {
        case "object":
            guard let properties = schema["properties"]?.objectValue, !properties.isEmpty else { throw Unsampled(path: path) }
            var object = JSONObject()
            for key in properties.keys.sorted() { object[key] = try value(properties[key]!, path: Self.join(path, key), turn: turn) }
            return .object(object)
        case "array":
            guard let items = schema["items"] else { throw Unsampled(path: path) }
            // Two items, unlike each other where the items are one of a few (days of the week).
            if let choices = items["enum"]?.arrayValue, choices.count > 1 {
                return .array([choices[turn % choices.count], choices[(turn + 1) % choices.count]])
            }
            return .array(try (0..<2).map { index in
                var item = try value(items, path: path + "[]", turn: turn + index)
                if case .object(var object) = item, let key = object["key"]?.stringValue {
                    object["key"] = .string(key + String(index))  // unique keys
                    item = .object(object)
                }
                return item
            })
        case "integer":
            // The largest value the schema allows, else the smallest.
            if let maximum = schema["maximum"], case .number = maximum { return maximum }
            if let minimum = schema["minimum"], case .number = minimum { return minimum }
            return 1
        case "boolean":
            return true
        case "string":
            if schema["pattern"] != nil && schema["format"] != "uri" { throw Unsampled(path: path) }
            switch schema["format"]?.stringValue {
            case "uri": return .string("https://cdn.example.com/\(path.replacingOccurrences(of: "[]", with: "")).png")
            case nil: return .string("\(path.split(separator: ".").last ?? "text") \(turn)")
            default: throw Unsampled(path: path)
            }
        default:
            throw Unsampled(path: path)
        }
    }
}

extension JSON {
    /// The value at a leaf path of `SchemaCampaigns.leaves` (`[]`: in any item), or nil.
    func values(at path: String) -> [JSON] {
        var current: [JSON] = [self]
        for part in path.split(separator: ".") {
            let name = part.hasSuffix("[]") ? String(part.dropLast(2)) : String(part)
            current = current.compactMap { $0[name] }
            if part.hasSuffix("[]") { current = current.flatMap { $0.arrayValue ?? [] } }
        }
        return current.filter { $0 != .null }
    }

    /// This document without the value at an error's path ("delivery.recipient_time.time_zones",
    /// "variants[1].notification.title"); false when there was nothing there.
    mutating func remove(path: String) -> Bool {
        guard let first = path.split(separator: ".", maxSplits: 1).first else { return false }
        let rest = path.split(separator: ".", maxSplits: 1).dropFirst().first.map(String.init)
        var name = String(first)
        var index: Int?
        if let open = name.firstIndex(of: "["), name.hasSuffix("]") {
            index = Int(name[name.index(after: open)..<name.index(before: name.endIndex)])
            name = String(name[..<open])
        }
        guard case .object(var object) = self, var child = object[name] else { return false }
        if let index {
            guard case .array(var items) = child, items.indices.contains(index) else { return false }
            if let rest {
                guard items[index].remove(path: rest) else { return false }
            } else {
                items.remove(at: index)
            }
            child = .array(items)
        } else if let rest {
            guard child.remove(path: rest) else { return false }
        } else {
            object[name] = nil
            self = .object(object)
            return true
        }
        object[name] = child
        self = .object(object)
        return true
    }
}
