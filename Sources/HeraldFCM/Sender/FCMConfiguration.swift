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

    /// FCM's own endpoint.
    public static let googleBaseURL = "https://fcm.googleapis.com"

    public init(
        projectID: String,
        baseURL: String = FCMConfiguration.googleBaseURL,
        requestTimeout: Duration = .seconds(30),
        retryPolicy: RetryPolicy = RetryPolicy()
    ) {
        self.projectID = projectID
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.requestTimeout = requestTimeout
        self.retryPolicy = retryPolicy
    }

    /// `{base}/v1/projects/{project_id}/messages:send`.
    public var sendURL: String { "\(baseURL)/v1/projects/\(projectID)/messages:send" }
}
