import HeraldFCM

/// FCM's limit on topic subscription adds and removes, 3,000 requests a second per project
/// (`reference/fcm.md`, "Topic limits"), shared by every instance: the send quota's PostgreSQL
/// token bucket (`SendQuotaStore`, one `send_buckets` row) under a key of its own, so that a 429
/// holds every instance's subscription requests, and none of its sends.
struct SubscriptionQuota: SubscriptionPermits {
    let database: Database
    let limit: SendQuotaStore.Limit
    let store = SendQuotaStore()

    /// FCM's rate, a second.
    static let fcmRatePerSecond = 3000.0
    /// The bucket holds one round of requests; its rate keeps that round and one in flight under
    /// FCM's rate in any second, so a round that reaches FCM late does not tip a second over.
    static let capacity = 150
    /// A take waits for at least this many tokens: rounds of a few requests would each pay a
    /// transaction for little.
    static let smallestRound = 50

    init(database: Database, project: String) {
        self.database = database
        limit = SendQuotaStore.Limit(project: Self.bucketKey(project), ratePerSecond: Self.fcmRatePerSecond - Double(2 * Self.capacity),
                                     capacity: Self.capacity)
    }

    /// The `send_buckets` key: the project's own row is its send quota.
    static func bucketKey(_ project: String) -> String { project + "#topic-subscriptions" }

    func take(_ wanted: Int) throws -> SubscriptionGrant {
        let grant = try database.read { try store.take(wanted, atLeast: Self.smallestRound, limit: limit, on: $0) }.0
        return SubscriptionGrant(granted: grant.granted, wait: .milliseconds(Int64((grant.wait * 1000).rounded(.up))))
    }

    func giveBack(_ count: Int) throws {
        try database.read { try store.giveBack(count, limit: limit, on: $0) }
    }

    func hold(for duration: Duration) throws {
        _ = try database.read { try store.hold(for: Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18, limit: limit, on: $0) }
    }
}
