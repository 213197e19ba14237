/// JSON Merge Patch (RFC 7396): objects merge member by member, `null` removes a member, anything
/// else replaces. One algorithm for the API's PATCH and for a campaign's raw platform overrides
/// ("`null` removes a rendered member").
extension JSON {
    /// This value with `patch` applied.
    public func mergePatched(with patch: JSON) -> JSON {
        guard case .object(let patchObject) = patch else { return patch }
        var result = objectValue ?? JSONObject()
        for (key, value) in patchObject {
            if value == .null {
                result[key] = nil
            } else {
                result[key] = (result[key] ?? .null).mergePatched(with: value)
            }
        }
        return .object(result)
    }
}
