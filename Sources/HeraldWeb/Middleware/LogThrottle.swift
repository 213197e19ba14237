import HeraldSync

/// At most one log line per `interval` for one kind of event, with how many were held back, so
/// a client hammering the server (a bad API key in a loop) cannot fill the logs.
final class LogThrottle: Sendable {
    private let interval: Duration
    private let state = Locked<(last: ContinuousClock.Instant?, suppressed: Int)>((nil, 0))

    init(interval: Duration) { self.interval = interval }

    /// The number of events held back since the last line when a line may be written now; nil
    /// when this one is held back too.
    func permit() -> Int? {
        let now = ContinuousClock.now
        return state.withLock { state in
            if let last = state.last, last.duration(to: now) < interval {
                state.suppressed += 1
                return nil
            }
            let suppressed = state.suppressed
            state = (now, 0)
            return suppressed
        }
    }
}
