import HeraldSync
import Testing

@Suite struct ConditionLockTests {
    @Test func aWaitWithADeadlineGivesUpWhenNothingChanges() {
        let lock = ConditionLock(0)
        let started = ContinuousClock.now
        let value: Int? = lock.wait(until: monotonicDeadline(after: .milliseconds(50))) { $0 > 0 ? $0 : nil }
        #expect(value == nil)
        #expect(started.duration(to: .now) >= .milliseconds(50))
    }

    @Test func aWaiterWakesForAChangeMadeOnAnotherThread() throws {
        let lock = ConditionLock(0)
        try startThread(name: "test-signaller") {
            // The pause is the test's: the change must come while the waiter already waits.
            sleepThread(for: .milliseconds(20))
            lock.withLock { $0 = 7 }
            lock.broadcast()
        }
        #expect(lock.wait { $0 > 0 ? $0 : nil } == 7)
    }

    @Test func aChangeBeforeTheWaitIsNotMissed() {
        let lock = ConditionLock(false)
        lock.withLock { $0 = true }
        lock.signal()  // nobody waits yet
        let seen: Bool? = lock.wait(until: monotonicDeadline(after: .seconds(5))) { $0 ? true : nil }
        #expect(seen == true)
    }
}

@Suite struct LockedTests {
    @Test func updatesFromManyThreadsAreNotLost() throws {
        let counter = Locked(0)
        let finished = ConditionLock(0)
        for index in 0..<4 {
            try startThread(name: "test-adder-\(index)") {
                for _ in 0..<10_000 { counter.withLock { $0 += 1 } }
                finished.withLock { $0 += 1 }
                finished.broadcast()
            }
        }
        finished.wait { $0 == 4 ? () : nil }
        #expect(counter.withLock { $0 } == 40_000)
    }
}

@Suite struct DurationTests {
    @Test func conversions() {
        #expect(Duration.milliseconds(1500).seconds == 1.5)
        #expect(Duration.milliseconds(1500).timespec.tv_sec == 1 && Duration.milliseconds(1500).timespec.tv_nsec == 500_000_000)
        #expect(Duration.milliseconds(-500).timespec.tv_sec == 0 && Duration.milliseconds(-500).timespec.tv_nsec == 0)
    }

    @Test func sleepingWaitsAtLeastTheDurationAndNothingForANegativeOne() {
        var started = ContinuousClock.now
        sleepThread(for: .milliseconds(30))
        #expect(started.duration(to: .now) >= .milliseconds(30))
        started = ContinuousClock.now
        sleepThread(for: .seconds(-1))
        #expect(started.duration(to: .now) < .milliseconds(30))
    }
}
