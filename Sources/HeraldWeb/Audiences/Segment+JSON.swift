import HeraldApp
import HeraldJSON

extension Segment {
    /// The segments API's representation.
    var json: JSON {
        ["id": .string(id.description), "name": .string(name), "rule": rule.toJSON(), "created_by": createdBy.map(JSON.string) ?? .null,
         "updated_at": .time(updatedAt)]
    }
}
