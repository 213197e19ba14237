import HeraldSync

/// Why a streamed body stopped before its end.
public struct RequestBodyError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Reason: Sendable, Equatable {
        /// The client closed the connection (or it broke) mid-body.
        case closed
        /// Nothing arrived for the body timeout.
        case timeout
        /// More than the route's limit.
        case tooLarge
        /// The chunked framing is not valid.
        case malformed
    }

    public var reason: Reason
    /// What the parser or the server said, in English.
    public var detail: String

    public init(_ reason: Reason, detail: String) {
        self.reason = reason
        self.detail = detail
    }

    /// The status an answer should carry: 400, 408 or 413.
    public var status: Int {
        switch reason {
        case .closed, .malformed: 400
        case .timeout: 408
        case .tooLarge: 413
        }
    }

    public var description: String { detail }

    static let connectionClosed = RequestBodyError(.closed, detail: "The connection closed before the whole body arrived.")

    static func parse(_ error: HTTPParseError) -> RequestBodyError {
        RequestBodyError(error.status == 413 ? .tooLarge : .malformed, detail: error.description)
    }
}

/// The body of a request whose route takes bodies larger than memory should hold (an import of a
/// million devices): the handler reads it part by part as it arrives, while the event loop keeps
/// receiving. The loop stops reading the socket while `highWater` bytes wait unread, and resumes
/// once the handler has taken them down to `lowWater`, so a fast client and a slow handler never
/// make the server hold more than about `highWater` plus one read of the body.
public final class RequestBodyStream: Sendable {
    private struct State {
        var parts: [[UInt8]] = []
        var head = 0
        var queuedBytes = 0
        var finished = false
        var failure: RequestBodyError?
        var producerPaused = false
        var peakQueuedBytes = 0
    }

    /// The loop pauses reading at this many unread bytes...
    public static let highWater = 1 << 20
    /// ...and resumes when the handler has taken them down to this many.
    public static let lowWater = 256 << 10

    private let state = ConditionLock(State())
    /// Tells the loop to read again (called on the handler's thread, outside the lock).
    private let resume: @Sendable () -> Void

    init(resume: @escaping @Sendable () -> Void) { self.resume = resume }

    // MARK: The handler's side

    /// The next part of the body, in order, waiting for it to arrive; nil after the last.
    /// Throws when the body cannot arrive whole: the client went away, was too slow, sent
    /// malformed framing or more than the route allows (a `RequestBodyError`).
    public func next() throws -> [UInt8]? {
        let (part, wake) = try state.wait { state -> ([UInt8]?, Bool)? in
            if state.head < state.parts.count {
                let part = state.parts[state.head]
                state.parts[state.head] = []
                state.head += 1
                if state.head == state.parts.count {
                    state.parts.removeAll(keepingCapacity: true)
                    state.head = 0
                }
                state.queuedBytes -= part.count
                let wake = state.producerPaused && state.queuedBytes <= Self.lowWater
                if wake { state.producerPaused = false }
                return (part, wake)
            }
            if let failure = state.failure { throw failure }
            return state.finished ? (nil, false) : nil
        }
        if wake { resume() }
        return part
    }

    /// The most bytes that ever waited unread: what the stream held at once.
    public var peakQueuedBytes: Int { state.withLock { $0.peakQueuedBytes } }

    /// Whether the last part has arrived (the handler may not have read it yet).
    public var isFinished: Bool { state.withLock { $0.finished } }

    // MARK: The loop's side

    /// Adds a part; true when the loop should stop reading until `resume` is called.
    func push(_ part: [UInt8], last: Bool) -> Bool {
        let pause = state.withLock { state -> Bool in
            guard !state.finished, state.failure == nil else { return false }
            if !part.isEmpty {
                state.parts.append(part)
                state.queuedBytes += part.count
                state.peakQueuedBytes = max(state.peakQueuedBytes, state.queuedBytes)
            }
            state.finished = last
            state.producerPaused = !last && state.queuedBytes >= Self.highWater
            return state.producerPaused
        }
        state.signal()
        return pause
    }

    /// Ends the stream with an error; the handler's next read throws it. Nothing after the last part.
    func fail(_ error: RequestBodyError) {
        state.withLock { state in
            guard !state.finished, state.failure == nil else { return }
            state.failure = error
        }
        state.signal()
    }
}
