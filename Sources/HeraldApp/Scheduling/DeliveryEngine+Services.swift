#if canImport(Glibc)
import Glibc
#endif
import Foundation
import HeraldCore

extension DeliveryEngine {
    /// Due campaigns one scheduler step starts at most.
    static let runsPerPass = 100

    /// An owner id for leases (`host:pid:random`): one per instance, shared by its delivery
    /// workers, its webhook dispatch and its leader lease, so a lease names who holds it.
    static func newOwner() -> String {
        var host = [CChar](repeating: 0, count: 256)
        gethostname(&host, host.count)
        return "\(String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)):\(getpid()):\(UUID().uuidString.prefix(8))"
    }

    /// The engine's background services. The scheduler runs on every instance (its claims skip
    /// what another instance holds, so more instances start due runs sooner); the chores that
    /// delete, fold or sweep run once per deployment, on the leader.
    var backgroundServices: [BackgroundService] {
        let hour: Duration = .seconds(3600)
        return [
            BackgroundService("scheduler", .everyInstance, every: configuration.pollInterval, bell: scheduleBell, step: { [self] _ in try scheduleStep() }),
            // Journeys move their devices on every instance (each batch's places are locked, SKIP LOCKED).
            BackgroundService("journeys", .everyInstance, every: configuration.pollInterval, bell: journeyBell, step: { [self] _ in try journeyStep() }),
            // A worker that died between recording a run's last outcomes and closing the run
            // leaves it open with nothing left to send: closed here, whoever recorded them.
            BackgroundService("run-closing", .leader, every: configuration.pollInterval, step: { [self] _ in
                try outbox.closeFinishedRuns()
                return nil
            }),
            // Devices registered since, into the segment counts.
            BackgroundService("census-fold", .leader, every: configuration.pollInterval, step: { [self] _ in
                try outbox.foldDeviceCensus()
                return nil
            }),
            // Saved segments' reach, counted again once older than a few minutes, for the pages and
            // the API to show without counting (a few seconds a pass at most: the registry is shared).
            BackgroundService("segment-reach", .leader, every: .seconds(30), step: { [self] _ in
                _ = try outbox.renewSegmentReach(budget: .seconds(2))
                return nil
            }),
            BackgroundService("stale-devices", .leader, every: hour, step: { [self] _ in
                let stale = try outbox.markStaleDevices(unseenForDays: configuration.staleDeviceDays)
                if stale > 0 { log.info("devices marked stale", ["devices": .number(Double(stale)), "unseen_days": .number(Double(configuration.staleDeviceDays))]) }
                return nil
            }),
            BackgroundService("delivery-retention", .leader, every: hour, step: { [self] _ in
                let retention = try outbox.applyRetention(days: configuration.deliveryRetentionDays)
                if retention.opened != nil || !retention.dropped.isEmpty {
                    log.info("delivery detail partitions", ["opened": retention.opened.map { .number(Double($0)) } ?? .null,
                                                            "dropped": .array(retention.dropped.map { .number(Double($0)) }),
                                                            "retention_days": .number(Double(configuration.deliveryRetentionDays))])
                }
                return nil
            }),
        ]
    }

    /// One step of the journeys: calls the steps' A/B winners that are due, enters the devices
    /// whose date came due, moves a batch of the devices due; returns straight back while more are due, else the wait until the next one is.
    func journeyStep() throws -> Duration? {
        let now = configuration.journeyClock()
        for (campaign, decision) in try outbox.decideJourneyWinners(now: now) {
            log.info("journey step winner decided", ["campaign": .string(campaign.description), "variant": decision.variantToSend.map { .string($0) } ?? .null,
                                                     "decision": .string(decision.sentence)])
        }
        let entered = try outbox.enterJourneysOnDates(now: now, limit: configuration.journeyBatch)
        if entered > 0 { metrics.increment("herald_journey_date_entries_total", by: Double(entered), help: "Devices this process entered into journeys as a date came due.") }
        let (moved, requests) = try outbox.advanceJourneys(now: now, limit: configuration.journeyBatch)
        if requests > 0 {
            deliveryBell.ring()
            metrics.increment("herald_journey_requests_total", by: Double(requests), help: "Journey messages written to the outbox by this process.")
        }
        if moved > 0 { metrics.increment("herald_journey_moves_total", by: Double(moved), help: "Journey devices moved by this process.") }
        if moved == configuration.journeyBatch || entered == configuration.journeyBatch { return .zero }
        guard let seconds = try outbox.secondsUntilNextJourneyMove(now: now) else { return configuration.pollInterval }
        return min(configuration.pollInterval, .milliseconds(max(0, Int(seconds * 1000))))
    }

    /// One step of the scheduler: acts on expiries and windows, decides A/B winners, starts due
    /// runs, plans runs to devices a chunk further; returns the wait until the next due time, the
    /// next control, or straight back when more is due now.
    func scheduleStep() throws -> Duration? {
        let look = beganLook(0)
        try outbox.applyDeliveryControls(now: Date())
        let decided = try outbox.decideWinners(now: Date())
        for (campaign, decision) in decided {
            log.info("automatic winner decided", ["campaign": .string(campaign.description), "variant": decision.variantToSend.map { .string($0) } ?? .null,
                                                  "decision": .string(decision.sentence)])
        }
        if decided.contains(where: { $0.decision.variantToSend != nil }) { deliveryBell.ring() }
        let started = try outbox.startDueRuns(limit: Self.runsPerPass, now: Date())
        let labels = try outbox.labelsToday()
        labelsToday.withLock { $0 = labels }
        // This process's workers need not wait for the notification to come round.
        if !started.isEmpty { deliveryBell.ring() }
        for run in started {
            metrics.increment("herald_runs_started_total", help: "Campaign runs started by this process's scheduler.")
            // A streamed run's size is known as it sends (-1 here).
            log.info("run started", ["campaign": .string(run.campaignID.description), "run": .string(run.runID.description),
                                     "deliveries": run.deliveries < 0 ? .null : .number(Double(run.deliveries))])
        }
        // Runs to devices plan while they send, a chunk a pass: straight back while any has more.
        let planned = try outbox.planRuns(limit: Self.runsPerPass)
        if planned > 0 { deliveryBell.ring() }
        finishedLook(0, look)
        if started.count == Self.runsPerPass || planned > 0 { return .zero }  // more may be due right now
        var wait = configuration.pollInterval
        if let seconds = try outbox.secondsUntilNextDue() {
            wait = min(wait, .milliseconds(max(0, Int(seconds * 1000))))
        }
        // A run expiring or a window closing is acted on when it happens.
        if let seconds = try outbox.secondsUntilNextControl() {
            wait = min(wait, .milliseconds(max(10, Int(seconds * 1000) + 10)))
        }
        return wait
    }
}
