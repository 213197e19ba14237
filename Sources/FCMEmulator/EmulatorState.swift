import HeraldSync
import HeraldFCM
import HeraldJSON
import FCMMessage

/// A message the emulator accepted (not a validate-only one).
public struct ReceivedMessage: Sendable {
    /// Increases by one per accepted message; `GET /emulator/messages?since=` pages by it.
    public let sequence: Int
    /// The name it was answered with, "projects/{project}/messages/{id}".
    public let name: String
    /// The `message` object as received.
    public let message: JSON
    public let receivedAt: UnixTime
    /// For a message to a topic or a condition: the registrations subscribed (through either
    /// topic API) that it reaches, sorted; nil for a message to one device.
    public var reached: [String]? = nil

    var json: JSON {
        var object: JSONObject = ["sequence": .number(Double(sequence)), "name": .string(name),
                                  "received_at": .number((receivedAt.seconds * 1000).rounded() / 1000), "message": message]
        if let reached { object["reached"] = .array(reached.map(JSON.string)) }
        return .object(object)
    }
}

/// One request to `messages:send` and how it was answered, faults included; tests read these to
/// check how a client retried.
public struct SendAttemptRecord: Sendable {
    public let receivedAt: ContinuousClock.Instant
    /// The HTTP status answered; 0 for a dropped connection.
    public let status: Int
    /// The `message` object, when the body could be parsed.
    public let message: JSON?
}

/// One request to v1's `topicSubscriptions`, as received, and the status it was answered.
public struct SubscriptionRequestRecord: Sendable {
    public let method: String
    /// Path and query as received (still percent-encoded).
    public let target: String
    public let body: [UInt8]
    public let status: Int

    public init(method: String, target: String, body: [UInt8], status: Int) {
        self.method = method
        self.target = target
        self.body = body
        self.status = status
    }
}

/// The emulator's mutable state, kept behind one lock. Every section under the lock is O(1):
/// handler threads contend for it on every request.
struct EmulatorState {
    var accessTokens: [String: ContinuousClock.Instant] = [:]
    var tokensIssued = 0
    var messages: BoundedLog<ReceivedMessage>
    var nextSequence = 1
    /// Every accepted message counted by its analytics label ("" for none): the log keeps only
    /// the last `capacity` messages, these count a send of millions.
    var acceptedByLabel: [String: Int] = [:]
    var accepted = 0
    /// What the Data API reports: accepted messages by day, Android app and label, with outcomes.
    var delivery: [DeliveryKey: DeliveryTally] = [:]
    var attempts: BoundedLog<SendAttemptRecord>
    var random: SplitMix64
    /// Topic subscriptions, made through either API: registrations by topic, and each
    /// registration's topics with their creation time (RFC 3339).
    var subscriptions: [String: Set<String>] = [:]
    var topicsByRegistration: [String: [String: String]] = [:]
    var topicManagementCalls = 0
    /// Requests to v1's `topicSubscriptions` (all of them, and those answered 429 over the
    /// project's rate), the whole second the rate is counted in and its adds or removes so far.
    var subscriptionRequests: BoundedLog<SubscriptionRequestRecord>
    var subscriptionRequestCount = 0
    var subscriptionThrottled = 0
    var rateSecond: Int64 = 0
    var rateCount = 0
    /// Instance ID calls received (answered or refused), and the flaky tokens already seen once.
    var instanceIDCalls = 0
    /// Data API calls answered so far.
    var dataAPICalls = 0
    var flakyTokensSeen: Set<String> = []

    init(capacity: Int, random: SplitMix64) {
        messages = BoundedLog(capacity: capacity)
        attempts = BoundedLog(capacity: capacity)
        subscriptionRequests = BoundedLog(capacity: capacity)
        self.random = random
    }

    /// Subscribes `registration` to `topic`; false when it already was.
    mutating func subscribe(_ registration: String, to topic: String, at time: String) -> Bool {
        guard topicsByRegistration[registration]?[topic] == nil else { return false }
        topicsByRegistration[registration, default: [:]][topic] = time
        subscriptions[topic, default: []].insert(registration)
        return true
    }

    /// Unsubscribes `registration` from `topic`; false when it was not subscribed.
    mutating func unsubscribe(_ registration: String, from topic: String) -> Bool {
        guard topicsByRegistration[registration]?.removeValue(forKey: topic) != nil else { return false }
        if topicsByRegistration[registration]?.isEmpty == true { topicsByRegistration[registration] = nil }
        subscriptions[topic]?.remove(registration)
        return true
    }

    /// The registrations a message to `topic` or `condition` reaches, sorted; nil for neither.
    func reach(topic: String?, condition: String?) -> [String]? {
        if let topic { return (subscriptions[TopicName.stripPrefix(topic)] ?? []).sorted() }
        guard let condition, let parsed = try? TopicCondition.parse(condition) else { return nil }
        // Only registrations with some topic can be reached (FCM conditions need one 'in topics').
        return topicsByRegistration.filter { parsed.evaluate(subscriptions: Set($0.value.keys)) }.keys.sorted()
    }
}

/// The last `capacity` elements appended, oldest first; appending is O(1) (a ring buffer).
struct BoundedLog<Element> {
    private var storage: [Element] = []
    private var start = 0
    let capacity: Int

    init(capacity: Int) { self.capacity = max(1, capacity) }

    mutating func append(_ element: Element) {
        if storage.count < capacity {
            storage.append(element)
        } else {
            storage[start] = element
            start = (start + 1) % capacity
        }
    }

    mutating func removeAll() {
        storage.removeAll()
        start = 0
    }

    var elements: [Element] { Array(storage[start...] + storage[..<start]) }
}

