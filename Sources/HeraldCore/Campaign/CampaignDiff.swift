import HeraldJSON

/// What changed between two versions of a campaign's content, field by field, for the approver:
/// "notification.title: Sale → Big sale". Objects are walked by key; arrays and scalars are
/// compared whole (a changed topic list is one change, shown before and after).
public enum CampaignDiff {
    public struct Change: Sendable, Equatable {
        /// The field's path, keys joined by dots ("options.priority").
        public var path: String
        /// The value before; nil when the field was added.
        public var old: JSON?
        /// The value after; nil when the field was removed.
        public var new: JSON?

        public init(path: String, old: JSON?, new: JSON?) {
            self.path = path
            self.old = old
            self.new = new
        }

        /// The value before as the approver reads it (strings without quotes, the rest as JSON).
        public var before: String? { old.map(CampaignDiff.text) }
        /// The value after, read the same way.
        public var after: String? { new.map(CampaignDiff.text) }
    }

    /// Every changed field from `old` (nil: nothing approved yet, so every field is new) to `new`,
    /// in path order.
    public static func changes(from old: JSON?, to new: JSON) -> [Change] {
        var changes: [Change] = []
        walk(old, new, path: "", into: &changes)
        return changes.sorted { $0.path < $1.path }
    }

    static func walk(_ old: JSON?, _ new: JSON?, path: String, into changes: inout [Change]) {
        // An object on either side (the other an object too, or absent) is walked field by field.
        let before = old?.objectValue, after = new?.objectValue
        if (before != nil || after != nil), (before != nil || old == nil), (after != nil || new == nil) {
            for key in Set((before ?? [:]).keys).union((after ?? [:]).keys) {
                walk(before?[key], after?[key], path: path.isEmpty ? key : "\(path).\(key)", into: &changes)
            }
            return
        }
        if old != new { changes.append(Change(path: path, old: old, new: new)) }
    }

    /// A value as the approver reads it: strings without quotes, everything else as JSON.
    static func text(_ value: JSON) -> String {
        if case .string(let string) = value { return string }
        return value.serializedString()
    }
}
