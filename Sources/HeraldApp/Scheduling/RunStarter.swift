import Foundation
import HeraldCore
import HeraldPostgres

/// Starts the runs of due campaigns: locks them, plans each in Swift (the fan-out planner and
/// the schedule's next occurrence, both pure), and writes runs and deliveries in the same
/// transaction. Content today's rules refuse fails its campaign alone, with the reason recorded.
struct RunStarter: Sendable {
    let store = DeliveryStore()
    let buckets: AudienceBuckets
    /// Whether only a version a publisher approved may start a run (`HERALD_APPROVALS`).
    var approvalsRequired = false

    func startDueRuns(limit: Int, now: Date, on connection: PostgresConnection) throws -> [DeliveryStore.StartedRun] {
        try connection.transaction { connection in
            var planned: [DeliveryStore.PlannedRun] = []
            var unplannable: [(due: DeliveryStore.Due, reason: String)] = []
            var deviceRuns: [DeliveryStore.StartedRun] = [], deviceCampaigns: [(campaignID: CampaignID, nextRun: Date?)] = []
            // The control group each marketing run to devices freezes as it starts.
            var policy: ContactPolicy?
            for var due in try store.lockDue(limit: limit, approvalsRequired: approvalsRequired, on: connection) {
                // The labelling the run sends with, decided now against the day's budget and frozen in its content.
                var parsed = CampaignSpec.parse(due.content)
                if case .success(var spec) = parsed {
                    spec.options.labels = try LabelDayStore().resolve(spec, campaignID: due.campaignID.description, on: connection)
                    due.content = LabelDayStore.content(due.content, labelled: spec.options.labels ?? .auto)
                    parsed = .success(spec)
                }
                switch parsed {
                case .failure(let errors):
                    unplannable.append((due, "The campaign cannot be planned: its content no longer passes validation ("
                                             + errors.errors.map { "\($0.path): \($0.message)" }.joined(separator: "; ") + ")."))
                case .success(let spec) where spec.audience.isPerDevice:
                    guard let audience = try Self.devices(of: spec.audience, on: connection) else {
                        unplannable.append((due, "The campaign cannot be planned: its segment has been deleted."))
                        continue
                    }
                    if policy == nil { policy = try ContactPolicyStore().read(on: connection) }
                    if let started = try Self.startDeviceRun(due, spec: spec, audience: audience, controlGroup: policy?.controlGroup.forRun(of: spec),
                                                             waves: Self.waves(of: spec, occurrence: due.occurrence), now: now, on: connection) {
                        deviceRuns.append(started)
                    }
                    deviceCampaigns.append((due.campaignID, Arming.nextRun(of: spec, after: due.occurrence, now: now)))
                case .success(let spec):
                    var plan: FanOutPlan
                    var slots: [RecipientWaves.Slot]?
                    if var waves = Self.waves(of: spec, occurrence: due.occurrence) {
                        // Recipient time on topics: a wave per zone, through the zones' time-zone topics.
                        let zones = try spec.delivery.recipientTime?.timeZones ?? DeviceStore().timeZones(on: connection)
                        plan = FanOutPlanner.planInZones(campaign: spec.forSending, zones: zones, buckets: buckets,
                                                         campaignID: due.campaignID.description, sendTime: due.occurrence)
                        slots = plan.requests.map { waves.slot(for: $0.zone) }
                    } else {
                        plan = FanOutPlanner.plan(campaign: spec.forSending, buckets: buckets, campaignID: due.campaignID.description, sendTime: due.occurrence)
                    }
                    planned.append(DeliveryStore.PlannedRun(
                        campaignID: due.campaignID, occurrenceText: due.occurrenceText, version: due.version, plan: plan,
                        nextRun: Arming.nextRun(of: spec, after: due.occurrence, now: now),
                        expiresAt: spec.delivery.expiry(ofRunDueAt: due.occurrence),
                        window: spec.delivery.window?.interval(around: now), spacing: spec.delivery.spacingSeconds(requests: plan.requests.count),
                        slots: slots))
                }
            }
            try store.failUnplannable(unplannable, on: connection)
            try store.advance(deviceCampaigns, started: deviceRuns, on: connection)
            return try RunWriter().writeFanOuts(planned, on: connection) + deviceRuns
        }
    }

    /// Starts a run of `due` to devices, the one place that chooses how: streamed (no row per
    /// device; the workers read the audience as they send), unless paced by `max_per_minute` or a
    /// spread, or sent in `waves` (recipient time), whose requests fall due apart and need a row
    /// each (a streamed batch has no pace). A campaign's run and a winner's roll-out alike, with
    /// the campaign's expiry and sending hours.
    static func startDeviceRun(_ due: DeliveryStore.Due, spec: CampaignSpec, audience: DeviceAudience, rolloutVariant: String? = nil,
                               controlGroup: ControlGroup?, waves: RecipientWaves?, now: Date,
                               on connection: PostgresConnection) throws -> DeliveryStore.StartedRun? {
        let expiresAt = spec.delivery.expiry(ofRunDueAt: due.occurrence), window = spec.delivery.window?.interval(around: now)
        if waves == nil, !spec.delivery.isPaced {
            return try StreamedRunStore().start(due, audience: audience, rolloutVariant: rolloutVariant, controlGroup: controlGroup,
                                                expiresAt: expiresAt, window: window, on: connection)
        }
        // A spread over minutes needs the run's size first: the audience's count (its index answers it).
        let size = spec.delivery.spreadMinutes == nil ? 0 : try DeviceStore().count(audience, on: connection)
        return try DeviceRunWriter().start(due, audience: audience, rolloutVariant: rolloutVariant, controlGroup: controlGroup, expiresAt: expiresAt,
                                           window: window, waves: waves, spacing: spec.delivery.spacingSeconds(requests: size), on: connection)
    }

    /// Plans the next chunk of each run to devices still planning (up to `limit` runs, each in a
    /// transaction of its own, skipping runs another scheduler is planning); returns how many
    /// deliveries that wrote, so that the scheduler comes straight back while there are more.
    func planRuns(limit: Int, on connection: PostgresConnection) throws -> Int {
        var written = 0
        for id in try connection.transaction({ try PlanningRun.waiting(limit: limit, on: $0) }) {
            written += try connection.transaction { connection in
                guard let run = try PlanningRun.locked(id, waiting: false, on: connection) else { return 0 }
                return try DeviceRunWriter().planNextChunk(run, on: connection)
            }
        }
        return written
    }

    /// Each device's wave when the campaign sends at recipient time: the schedule's local time in
    /// the device's zone (the schedule's own zone for a device without one).
    static func waves(of spec: CampaignSpec, occurrence: Date) -> RecipientWaves? {
        guard let recipientTime = spec.delivery.recipientTime, let schedule = spec.schedule, let zone = schedule.timeZoneIdentifier else { return nil }
        return RecipientWaves(local: RecipientTime.localTime(ofRunAt: occurrence, schedule: schedule), fallbackZone: zone,
                              policy: recipientTime.past, latestDeliveryMinutes: spec.delivery.latestDeliveryMinutes, occurrence: occurrence)
    }

    /// The devices a device audience names: a segment's rule (nil when the segment is gone), or the tokens.
    static func devices(of audience: Audience, on connection: PostgresConnection) throws -> DeviceAudience? {
        switch audience {
        case .segment(let id): try SegmentService.load(id, on: connection).map { .segment($0.rule) }
        case .tokens(let tokens): .tokens(tokens)
        case .topics, .condition: nil
        }
    }

    /// The delivery controls the scheduler keeps: late runs expire, and runs whose sending hours
    /// closed move on to their next stretch (their campaign's window, read now, in Swift).
    func applyDeliveryControls(now: Date, on connection: PostgresConnection) throws {
        try store.expireLateRuns(on: connection)
        let closed = try store.runsWithClosedWindows(on: connection)
        let moved = closed.compactMap { run -> (runID: RunID, interval: SendingWindow.Interval)? in
            guard case .success(let spec) = CampaignSpec.parse(run.content), let window = spec.delivery.window else {
                // The window was edited away (not possible once sending) or the content no longer
                // parses: the run sends at any hour rather than never.
                return (run.runID, SendingWindow.Interval(opens: .distantPast, closes: .distantFuture))
            }
            return (run.runID, window.interval(around: now))
        }
        try store.moveWindows(moved, on: connection)
    }
}
