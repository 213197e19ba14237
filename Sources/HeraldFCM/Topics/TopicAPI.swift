/// Which of FCM's two server-side topic subscription APIs Herald uses (`HERALD_FCM_TOPIC_API`).
public enum TopicAPI: String, Sendable, CaseIterable {
    /// FCM v1's `projects.registrations.topicSubscriptions`: one request per registration, a token
    /// or a Firebase installation ID. The default: the only one a project made after 1 October 2026 has.
    case v1
    /// The Instance ID API's `iid/v1:batchAdd` and `:batchRemove`: up to 1,000 registration tokens
    /// a call, tokens only. A fallback for old projects until Google turns it down.
    case instanceID = "instance-id"

    /// When Google turns the Instance ID server API down (`reference/fcm.md`, fourth wave).
    public static let instanceIDTurndown = "29 September 2027"
    /// Projects created after this day cannot use the Instance ID API at all.
    public static let instanceIDOnboardingEnd = "1 October 2026"

    /// Whether devices registered by a Firebase installation ID can be subscribed: the v1 API takes
    /// an FID as the registration; the Instance ID API is documented for tokens only.
    public var takesInstallationIDs: Bool { self == .v1 }
}
