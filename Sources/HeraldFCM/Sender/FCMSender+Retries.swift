#if canImport(Glibc)
import Glibc
#endif
import FCMMessage
import HeraldSync
import HeraldJSON

/// One attempt within `sendWithRetries`: when it started, when its answer came, and what it was.
public struct SendAttempt: Sendable {
    public let started: ContinuousClock.Instant
    public let answered: ContinuousClock.Instant
    public let outcome: SendOutcome
}

/// What `sendWithRetries` did for one message: every attempt, the last outcome final.
public struct RetriedSend: Sendable {
    public let attempts: [SendAttempt]
    /// The final outcome: sent, a permanent error, or the last retryable error when attempts ran out.
    public var outcome: SendOutcome { attempts[attempts.count - 1].outcome }
}

extension FCMSender {
    /// Sends one message, retrying as `policy` says (the configuration's unless given) and sleeping
    /// in between; for paths that wait for the answer, like a test message.
    public func sendWithRetries(messageJSON: [UInt8], validateOnly: Bool = false, policy: RetryPolicy? = nil) -> RetriedSend {
        sendWithRetries(batch: [messageJSON], validateOnly: validateOnly, concurrency: 1, policy: policy)[0]
    }

    /// Sends one message with retries (see `sendWithRetries(messageJSON:)`).
    public func sendWithRetries(_ message: JSON, validateOnly: Bool = false, policy: RetryPolicy? = nil) -> RetriedSend {
        sendWithRetries(messageJSON: message.serialized(), validateOnly: validateOnly, policy: policy)
    }

    /// Sends many messages with retries: each round sends the messages that are due, at most
    /// `concurrency` at a time, then sleeps until the earliest retry is due. A retry is due no
    /// sooner than the policy's delay after the answer that asked for it.
    public func sendWithRetries(batch: [[UInt8]], validateOnly: Bool = false, concurrency: Int, policy: RetryPolicy? = nil) -> [RetriedSend] {
        let policy = policy ?? configuration.retryPolicy
        var attempts = [[SendAttempt]](repeating: [], count: batch.count)
        var waiting: [(index: Int, due: ContinuousClock.Instant)] = batch.indices.map { ($0, .now) }
        var generator = SystemRandomNumberGenerator()

        while !waiting.isEmpty {
            let now = ContinuousClock.now
            let due = waiting.filter { $0.due <= now }.map(\.index)
            guard !due.isEmpty else {
                sleep(until: waiting.map(\.due).min()!)
                continue
            }
            waiting.removeAll { $0.due <= now }
            let outcomes = send(batch: due.map { batch[$0] }, validateOnly: validateOnly, concurrency: concurrency)
            let answered = ContinuousClock.now
            for (index, outcome) in zip(due, outcomes) {
                attempts[index].append(SendAttempt(started: now, answered: answered, outcome: outcome))
                if let delay = policy.delay(forAttempt: attempts[index].count, outcome: outcome, using: &generator) {
                    waiting.append((index, answered + delay))
                }
            }
        }
        return attempts.map { RetriedSend(attempts: $0) }
    }

    private func sleep(until deadline: ContinuousClock.Instant) {
        sleepThread(for: deadline - .now)
    }
}
