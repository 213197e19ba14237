/// A connection's receive buffer: bytes not yet consumed by the parser, kept in one allocation
/// that is reused from request to request (moved down or grown only when full).
final class ReadBuffer {
    private var storage: UnsafeMutablePointer<UInt8>
    private(set) var capacity: Int
    private var start = 0
    private var end = 0
    private let initialCapacity: Int

    init(capacity: Int = 4096) {
        initialCapacity = capacity
        self.capacity = capacity
        storage = .allocate(capacity: capacity)
    }

    deinit { storage.deallocate() }

    /// The unconsumed bytes, valid until the next mutation.
    var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: storage + start, count: end - start) }

    var count: Int { end - start }
    var isEmpty: Bool { start == end }

    /// Drops the first `n` unconsumed bytes.
    func consume(_ n: Int) {
        start += n
        if start == end {
            start = 0
            end = 0
        }
    }

    /// Free space after the data, at least `minimum` bytes (moving the data down or growing).
    func freeSpace(minimum: Int) -> UnsafeMutableBufferPointer<UInt8> {
        if capacity - end < minimum && start > 0 {
            (storage).update(from: storage + start, count: end - start)
            end -= start
            start = 0
        }
        if capacity - end < minimum {
            var newCapacity = capacity * 2
            while newCapacity - end < minimum { newCapacity *= 2 }
            let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
            grown.update(from: storage + start, count: end - start)
            storage.deallocate()
            storage = grown
            capacity = newCapacity
            end -= start
            start = 0
        }
        return UnsafeMutableBufferPointer(start: storage + end, count: capacity - end)
    }

    /// Records that `n` bytes were written into the free space.
    func didAppend(_ n: Int) { end += n }

    /// Appends bytes (tests and the state machine's tests use this instead of a socket).
    func append(_ data: [UInt8]) {
        let space = freeSpace(minimum: data.count)
        _ = space.initialize(from: data)
        didAppend(data.count)
    }

    /// Gives back memory a large upload needed, once the buffer is empty again.
    func shrinkIfEmpty() {
        guard isEmpty, capacity > initialCapacity * 16 else { return }
        storage.deallocate()
        storage = .allocate(capacity: initialCapacity)
        capacity = initialCapacity
    }
}
