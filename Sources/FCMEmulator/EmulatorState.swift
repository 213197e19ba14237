import HeraldSync
import HeraldFCM
import HeraldJSON

/// A message the emulator accepted (not a validate-only one).
public struct ReceivedMessage: Sendable {
    /// Increases by one per accepted message; `GET /emulator/messages?since=` pages by it.
    public let sequence: Int
    /// The name it was answered with, "projects/{project}/messages/{id}".
    public let name: String
    /// The `message` object as received.
    public let message: JSON
    public let receivedAt: UnixTime

    var json: JSON {
        ["sequence": .number(Double(sequence)), "name": .string(name),
         "received_at": .number((receivedAt.seconds * 1000).rounded() / 1000), "message": message]
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
    /// Topic subscriptions made through the Instance ID API, by topic.
    var subscriptions: [String: Set<String>] = [:]
    var topicManagementCalls = 0
    /// Instance ID calls received (answered or refused), and the flaky tokens already seen once.
    var instanceIDCalls = 0
    var flakyTokensSeen: Set<String> = []

    init(capacity: Int, random: SplitMix64) {
        messages = BoundedLog(capacity: capacity)
        attempts = BoundedLog(capacity: capacity)
        self.random = random
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

