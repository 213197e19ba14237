import HeraldCore

extension RequestContext {
    /// The `limit` (1 to `maximumLimit`, else `defaultLimit`) and `cursor` (as `read` makes it)
    /// of a list that takes no other parameter; every bad or unknown one is refused by name.
    func pageQuery<Cursor>(defaultLimit: Int, maximumLimit: Int, cursor read: (String) -> Cursor?) throws -> (limit: Int, cursor: Cursor?) {
        var limit = defaultLimit
        var cursor: Cursor?
        var errors: [FieldError] = []
        for (name, value) in request.queryItems {
            switch name {
            case "limit" where Int(value).map { (1...maximumLimit).contains($0) } == true: limit = Int(value)!
            case "cursor" where read(value) != nil: cursor = read(value)
            case "limit":
                errors.append(FieldError(path: name, code: "out_of_range", message: "limit must be a whole number from 1 to \(maximumLimit)", limit: maximumLimit))
            case "cursor":
                errors.append(FieldError(path: name, code: "invalid_cursor", message: "cursor must be a next_cursor value from a previous page"))
            default:
                errors.append(FieldError(path: name, code: "unknown_parameter", message: "unknown query parameter \"\(name)\"; known: limit, cursor"))
            }
        }
        if !errors.isEmpty { throw Problem.invalidQuery(errors, words) }
        return (limit, cursor)
    }
}
