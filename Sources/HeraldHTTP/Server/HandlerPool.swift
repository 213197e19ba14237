import HeraldSync

/// A bounded pool of threads that run handlers off the event loops. Handlers may block (libpq),
/// so they never run on a loop; the queue is bounded so that overload is answered with 503
/// instead of growing without limit.
final class HandlerPool: Sendable {
    /// What each worker thread keeps from job to job, so a job that writes its own response
    /// neither allocates an output buffer nor formats the date anew.
    struct Scratch {
        var date = DateCache()
        var output: [UInt8] = []
    }

    typealias Job = @Sendable (inout Scratch) -> Void

    private struct State {
        var jobs: [Job] = []
        var head = 0
        var stopping = false
        var waiting: Int { jobs.count - head }
    }

    private let lock = ConditionLock(State())
    private let queueLimit: Int

    /// Starts `threads` workers; at most `queueLimit` jobs wait for a free worker.
    init(threads: Int, queueLimit: Int, name: String = "herald-handler") throws(SystemCallError) {
        self.queueLimit = queueLimit
        do {
            for index in 0..<max(threads, 1) {
                try startServerThread(name: "\(name)-\(index)") { [self] in work() }
            }
        } catch {
            stop()  // let the workers already started exit
            throw error
        }
    }

    /// Queues a job; false (and nothing queued) when the queue is full or the pool stopped.
    func submit(_ job: @escaping Job) -> Bool {
        lock.withLock { state in
            guard !state.stopping, state.waiting < queueLimit else { return false }
            state.jobs.append(job)
            lock.signal()
            return true
        }
    }

    /// Lets the workers exit once the queue is empty; jobs still queued are dropped.
    func stop() {
        lock.withLock { state in
            state.stopping = true
            state.jobs.removeAll()
            state.head = 0
            lock.broadcast()
        }
    }

    private func work() {
        var scratch = Scratch()
        while let job = next() { job(&scratch) }
    }

    private func next() -> Job? {
        lock.wait { state -> Job?? in
            guard state.waiting > 0 else { return state.stopping ? .some(nil) : nil }
            let job = state.jobs[state.head]
            state.head += 1
            if state.head == state.jobs.count {
                state.jobs.removeAll(keepingCapacity: true)
                state.head = 0
            } else if state.head >= 1024 && state.head * 2 >= state.jobs.count {
                state.jobs.removeFirst(state.head)
                state.head = 0
            }
            return .some(job)
        }
    }
}
