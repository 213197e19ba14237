extension RequestContext {
    static let maximumIdempotencyKeyLength = 255

    /// The request's `Idempotency-Key`, or nil without one: 1 to 255 visible ASCII characters, as
    /// a header carries them faithfully (and as the OpenAPI document says).
    func idempotencyKey() throws(Problem) -> String? {
        guard let key = request.headers["Idempotency-Key"] else { return nil }
        guard (1...Self.maximumIdempotencyKeyLength).contains(key.utf8.count), key.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw Problem.badRequest(code: "invalid_idempotency_key",
                                     "Idempotency-Key must be 1 to \(Self.maximumIdempotencyKeyLength) visible ASCII characters, such as a UUID.")
        }
        return key
    }
}
