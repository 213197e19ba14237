/// Who did something, as the audit log and a campaign's history record it: a signed-in user, an
/// API key, the command line, or (for a failed sign-in) the e-mail that was typed.
public struct Actor: Sendable, Equatable {
    public var userID: String?
    public var apiKeyID: String?
    /// The user's e-mail, `api-key:<name>`, or `cli:<login>`.
    public var name: String
    /// The client's address after proxy trust (empty on the command line).
    public var address: String

    public init(userID: String? = nil, apiKeyID: String? = nil, name: String, address: String = "") {
        self.userID = userID
        self.apiKeyID = apiKeyID
        self.name = name
        self.address = address
    }
}

extension Viewer {
    /// This viewer acting from `address`.
    public func actor(address: String) -> Actor {
        Actor(userID: userID, apiKeyID: apiKeyID, name: email, address: address)
    }
}
