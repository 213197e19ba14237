import Foundation
import HeraldTestSupport
import Synchronization
import Testing
@testable import HeraldApp

/// The runtime of background services: each steps on its own thread, its failures counted and
/// shown, a bell wakes it early, and a stop is joined (with each thread's finish).
@Suite struct BackgroundRuntimeTests {
    struct Refused: Error, CustomStringConvertible { var description: String { "the chore's database is away" } }

    @Test func servicesStepCountTheirErrorsShowInMetricsAndStopJoined() async throws {
        let steps = Mutex(0), failures = Mutex(0), finished = Mutex(0)
        let bell = Wakeup()
        let services = [
            // An hour apart: only the bell makes it step again.
            BackgroundService("ringing", .everyInstance, every: .seconds(3600), bell: bell, step: { _ in
                steps.withLock { $0 += 1 }
                return nil
            }, finish: { _ in finished.withLock { $0 += 1 } }),
            BackgroundService("failing", .leader, every: .seconds(3600), threads: 2, step: { _ in
                failures.withLock { $0 += 1 }
                throw Refused()
            }, finish: { _ in finished.withLock { $0 += 1 } }),
        ]
        let metrics = Metrics()
        let runtime = BackgroundRuntime(services: services, leadership: Leadership(.alone, owner: "test", log: Log(minimum: .error)),
                                        log: Log(minimum: .error), metrics: metrics)
        runtime.start()
        #expect(try await eventually(timeout: waitingLimit) { steps.withLock { $0 } == 1 && failures.withLock { $0 } >= 2 })
        bell.ring()
        #expect(try await eventually(timeout: waitingLimit) { steps.withLock { $0 } == 2 })

        let report = runtime.report
        #expect(report.map(\.name) == ["ringing", "failing"])
        #expect(report[0].steps == 2 && report[0].errors == 0 && !report[0].lastFailed && report[0].lastStarted != nil)
        #expect(report[1].errors >= 2 && report[1].lastFailed && report[1].lastError == "the chore's database is away")
        #expect(report[1].threads == 2 && report[1].scope == .leader)

        let text = metrics.exposition(families: runtime.gauges)
        #expect(text.contains("herald_background_leader 1"))
        #expect(text.contains(#"herald_background_last_step_failed{service="failing"} 1"#))
        #expect(text.contains(#"herald_background_last_step_failed{service="ringing"} 0"#))
        #expect(text.contains(#"herald_background_step_seconds_count{service="ringing"} 2"#))
        #expect(text.contains(#"herald_background_errors_total{service="failing"}"#))
        #expect(text.contains(#"herald_background_last_step_timestamp_seconds{service="ringing",scope="every_instance"}"#))

        // The failing service backs off (1 s, 2 s, …) rather than trying every second for an hour;
        // stopping wakes every thread at once and joins them, each finishing once.
        runtime.stop()
        #expect(runtime.waitUntilStopped(timeout: waitingLimit))
        #expect(finished.withLock { $0 } == 3)
    }
}
