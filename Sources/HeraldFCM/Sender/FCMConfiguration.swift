/// Where and how the sender talks to FCM.
public struct FCMConfiguration: Sendable {
    /// The Firebase project id: the `{project_id}` in the send URL.
    public var projectID: String
    /// Scheme, host and port of the v1 API, without a trailing slash (the emulator's in tests).
    public var baseURL: String
    /// Each request's deadline, connecting included.
    public var requestTimeout: Duration
    /// The policy `sendWithRetries` follows.
    public var retryPolicy: RetryPolicy
    /// Scheme, host and port of the Instance ID API (server-side topic subscriptions).
    public var instanceIDBaseURL: String
    /// Which API subscribes devices to topics: FCM v1's `topicSubscriptions`, or the Instance ID
    /// API for an old project until its turndown.
    public var topicAPI: TopicAPI

    /// The Instance ID API's own endpoint.
    public static let googleInstanceIDBaseURL = "https://iid.googleapis.com"

    /// FCM's own endpoint.
    public static let googleBaseURL = "https://fcm.googleapis.com"

    public init(
        projectID: String,
        baseURL: String = FCMConfiguration.googleBaseURL,
        requestTimeout: Duration = .seconds(30),
        retryPolicy: RetryPolicy = RetryPolicy(),
        instanceIDBaseURL: String? = nil,
        topicAPI: TopicAPI = .v1
    ) {
        self.topicAPI = topicAPI
        self.projectID = projectID
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.requestTimeout = requestTimeout
        self.retryPolicy = retryPolicy
        // The emulator serves both APIs; against Google each has its own host.
        let iid = instanceIDBaseURL ?? (self.baseURL == Self.googleBaseURL ? Self.googleInstanceIDBaseURL : self.baseURL)
        self.instanceIDBaseURL = iid.hasSuffix("/") ? String(iid.dropLast()) : iid
    }

    /// `{base}/v1/projects/{project_id}/messages:send`.
    public var sendURL: String { "\(baseURL)/v1/projects/\(projectID)/messages:send" }
}
