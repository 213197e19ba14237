/// Who did something, as the audit log and a campaign's history record it: a signed-in user, an
/// API key, the command line, or (for a failed sign-in) the e-mail that was typed.
public struct Actor: Sendable, Equatable {
    public var userID: UserID?
    public var apiKeyID: APIKeyID?
    /// The user's e-mail, `api-key:<name>`, or `cli:<login>`.
    public var name: String
    /// The client's address after proxy trust (empty on the command line).
    public var address: String
    /// The role acted with; nil for the command line and Herald itself, which may do anything.
    public var role: Role?

    public init(userID: UserID? = nil, apiKeyID: APIKeyID? = nil, name: String, address: String = "", role: Role? = nil) {
        self.userID = userID
        self.apiKeyID = apiKeyID
        self.name = name
        self.address = address
        self.role = role
    }

    /// Whether the actor may do what needs `role` at least.
    public func may(_ role: Role) -> Bool { self.role.map { $0 >= role } ?? true }
}

extension Viewer {
    /// This viewer acting from `address`.
    public func actor(address: String) -> Actor {
        Actor(userID: userID, apiKeyID: apiKeyID, name: email, address: address, role: role)
    }
}

/// Who made a campaign's current version, as people read it: "ana@example.com" (a user),
/// "my scripts" (an API key) or "ana" (the command line), with which of these it was.
public struct Attribution: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case user
        case apiKey = "api_key"
        case commandLine = "command_line"

        /// How pages label it: "my scripts (API key)".
        public var label: String {
            switch self {
            case .user: "user"
            case .apiKey: "API key"
            case .commandLine: "command line"
            }
        }
    }

    public var name: String
    public var kind: Kind

    public init(name: String, kind: Kind) {
        self.name = name
        self.kind = kind
    }

    /// "api_key:my scripts": one person or key the same way every time, for the approval rule
    /// that nobody approves their own change.
    public var identity: String { "\(kind.rawValue):\(name)" }

    /// "my scripts (API key)", "ana@example.com".
    public var description: String { kind == .user ? name : "\(name) (\(kind.label))" }
}

extension Actor {
    /// The actor as a campaign's history credits it, without the audit log's `api-key:` and `cli:` prefixes.
    public var attribution: Attribution {
        if apiKeyID != nil { return Attribution(name: Self.dropping("api-key:", from: name), kind: .apiKey) }
        if userID == nil, name.hasPrefix("cli:") { return Attribution(name: Self.dropping("cli:", from: name), kind: .commandLine) }
        return Attribution(name: name, kind: .user)
    }

    static func dropping(_ prefix: String, from text: String) -> String {
        text.hasPrefix(prefix) ? String(text.dropFirst(prefix.count)) : text
    }
}
