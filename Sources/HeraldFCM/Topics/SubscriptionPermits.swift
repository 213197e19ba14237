/// Who may make topic subscription requests, and when: FCM allows 3,000 adds or removes a second
/// per project (`reference/fcm.md`, "Topic limits"), counted over every instance of Herald that
/// shares the project. HeraldFCM knows no database, so the caller hands in the shared budget.
public protocol SubscriptionPermits: Sendable {
    /// Up to `wanted` requests may be made now: how many, or (granting none) how long to wait
    /// before asking again.
    func take(_ wanted: Int) throws -> SubscriptionGrant
    /// Requests taken but not made (the last round needed fewer) go back.
    func giveBack(_ count: Int) throws
    /// FCM answered 429: nobody sharing the budget makes a request for `duration`.
    func hold(for duration: Duration) throws
}

/// What `SubscriptionPermits.take` granted.
public struct SubscriptionGrant: Sendable, Equatable {
    public var granted: Int
    public var wait: Duration

    public init(granted: Int, wait: Duration = .zero) {
        self.granted = granted
        self.wait = wait
    }
}

/// No budget of Herald's own (tools and tests that talk to FCM alone); FCM's 429s still slow it.
public struct UnlimitedSubscriptionPermits: SubscriptionPermits {
    public init() {}
    public func take(_ wanted: Int) -> SubscriptionGrant { SubscriptionGrant(granted: wanted) }
    public func giveBack(_ count: Int) {}
    public func hold(for duration: Duration) {}
}
