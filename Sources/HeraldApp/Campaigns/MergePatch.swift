import HeraldJSON

/// JSON Merge Patch (RFC 7396): objects merge member by member, `null` removes, anything else replaces.
public enum MergePatch {
    public static func apply(_ patch: JSON, to target: JSON) -> JSON {
        guard case .object(let patchObject) = patch else { return patch }
        var result = target.objectValue ?? JSONObject()
        for (key, value) in patchObject {
            if value == .null {
                result[key] = nil
            } else {
                result[key] = apply(value, to: result[key] ?? .null)
            }
        }
        return .object(result)
    }
}
