import Synchronization
import Testing
@testable import HeraldHTTP

@Suite struct HandlerPoolTests {
    @Test func refusesJobsBeyondTheQueueLimitAndRunsTheRest() throws {
        let pool = try HandlerPool(threads: 1, queueLimit: 2)
        defer { pool.stop() }
        let started = TestSemaphore(), release = TestSemaphore(), finished = TestSemaphore()
        let ran = Mutex<[Int]>([])
        #expect(pool.submit { _ in started.signal(); release.wait(); ran.withLock { $0.append(0) }; finished.signal() })
        #expect(started.wait())
        // The only worker is busy: two jobs may wait, the third is refused.
        #expect(pool.submit { _ in ran.withLock { $0.append(1) }; finished.signal() })
        #expect(pool.submit { _ in ran.withLock { $0.append(2) }; finished.signal() })
        #expect(!pool.submit { _ in ran.withLock { $0.append(3) } })
        release.signal()
        for _ in 0..<3 { #expect(finished.wait()) }
        #expect(ran.withLock { $0 } == [0, 1, 2], "queued jobs run in order")
        // Room again once the queue drained.
        #expect(pool.submit { _ in finished.signal() })
        #expect(finished.wait())
    }

    @Test func stoppedPoolRefusesWork() throws {
        let pool = try HandlerPool(threads: 2, queueLimit: 10)
        pool.stop()
        #expect(!pool.submit { _ in })
    }
}
