/// What a user or API key may do. Each role may do everything the roles below it may.
///
/// | role | may |
/// | --- | --- |
/// | viewer | read everything (campaigns, previews, runs, deliveries, reports) |
/// | editor | create, edit and delete drafts; validate; send test messages |
/// | publisher | schedule, publish and cancel campaigns |
/// | admin | manage users and API keys; read the audit log |
public enum Role: String, Sendable, CaseIterable, Comparable {
    case viewer, editor, publisher, admin

    var rank: Int { Self.allCases.firstIndex(of: self)! }

    public static func < (lhs: Role, rhs: Role) -> Bool { lhs.rank < rhs.rank }
}

/// Who is asking: a signed-in user (browser session) or an API key.
public struct Viewer: Sendable {
    /// The signed-in user's id, for a browser session.
    public var userID: UserID?
    /// The key's id, for a request with an API key.
    public var apiKeyID: APIKeyID?
    /// The user's e-mail, or `api-key:<name>` for a key: what the audit log and campaign authors show.
    public var email: String
    public var role: Role
    /// The session's CSRF token (nil for API keys, which are not sent by browsers on their own).
    public var csrfToken: String?
    /// The key's scope (`full` or `events`); nil for sessions.
    public var scope: APIKeyScope?
    /// The language the user chose for the pages ("fa"); nil when not chosen, and for API keys.
    public var language: String?

    public init(userID: UserID? = nil, apiKeyID: APIKeyID? = nil, email: String, role: Role,
                csrfToken: String? = nil, scope: APIKeyScope? = nil, language: String? = nil) {
        self.userID = userID
        self.apiKeyID = apiKeyID
        self.email = email
        self.role = role
        self.csrfToken = csrfToken
        self.scope = scope
        self.language = language
    }
}

/// What an API key may be used for.
public enum APIKeyScope: String, Sendable, CaseIterable {
    /// Everything its role allows.
    case full
    /// Only `POST /api/v1/events` (for apps reporting opens and conversions).
    case events
    /// Only registering, updating and forgetting devices (for the apps' backends).
    case devices
    /// Only one-call sends (`POST /api/v1/sends`) and reading them (an order service, a CRM).
    case sends
}
