import Foundation
import Testing
@testable import HeraldApp

/// The scheduler's doorbell: a ring is never lost, a wait ends at its timeout, stop wakes everyone.
@Suite struct WakeupTests {
    @Test func aRingBeforeTheWaitIsNotLost() {
        let bell = Wakeup()
        let seen = bell.generation
        bell.ring()
        let clock = ContinuousClock()
        let waited = clock.measure { bell.wait(after: seen, timeout: .seconds(5)) }
        #expect(waited < .seconds(1))
    }

    @Test func aWaitEndsAtItsTimeout() {
        let bell = Wakeup()
        let waited = ContinuousClock().measure { bell.wait(after: bell.generation, timeout: .milliseconds(150)) }
        #expect(waited >= .milliseconds(150))
        #expect(waited < .seconds(3))
    }

    @Test func aRingFromAnotherThreadWakesTheWaiter() {
        let bell = Wakeup()
        let seen = bell.generation
        // The pause is the test's: the ring must come while the waiter already waits.
        let ringer = Thread { Thread.sleep(forTimeInterval: 0.1); bell.ring() }
        ringer.start()
        let waited = ContinuousClock().measure { bell.wait(after: seen, timeout: .seconds(10)) }
        #expect(waited < .seconds(5))
        #expect(bell.generation == seen + 1)
    }

    @Test func stopWakesAndStaysStopped() {
        let bell = Wakeup()
        // The pause is the test's: the stop must come while the waiter already waits.
        let stopper = Thread { Thread.sleep(forTimeInterval: 0.1); bell.stop() }
        stopper.start()
        let waited = ContinuousClock().measure { bell.wait(after: bell.generation, timeout: .seconds(10)) }
        #expect(waited < .seconds(5))
        #expect(bell.isStopped)
    }
}
