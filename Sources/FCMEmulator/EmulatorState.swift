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

/// The emulator's mutable state, kept behind one lock.
struct EmulatorState {
    var accessTokens: [String: ContinuousClock.Instant] = [:]
    var tokensIssued = 0
    var messages: [ReceivedMessage] = []
    var nextSequence = 1
    var attempts: [SendAttemptRecord] = []
    var random: SplitMix64

    mutating func record(_ message: ReceivedMessage, capacity: Int) {
        messages.append(message)
        if messages.count > capacity { messages.removeFirst(messages.count - capacity) }
    }

    mutating func log(_ attempt: SendAttemptRecord, capacity: Int) {
        attempts.append(attempt)
        if attempts.count > capacity { attempts.removeFirst(attempts.count - capacity) }
    }
}

/// SplitMix64: small, fast, and seedable, for repeatable fault injection.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
