import Synchronization

/// How many streamed requests may run at once on one server. A streamed request holds a handler
/// thread for as long as its client takes to send, so a few slow uploads must not take them all.
final class StreamSlots: Sendable {
    private let taken = Atomic(0)
    let limit: Int

    init(limit: Int) { self.limit = limit }

    func acquire() -> Bool {
        var current = taken.load(ordering: .relaxed)
        while current < limit {
            let (exchanged, original) = taken.compareExchange(expected: current, desired: current + 1, ordering: .acquiringAndReleasing)
            if exchanged { return true }
            current = original
        }
        return false
    }

    func release() { taken.subtract(1, ordering: .acquiringAndReleasing) }
}
