import FCMMessage
import Foundation
import HeraldCore
import HeraldFCM
import HeraldPostgres

/// What the delivery engine needs of the database: the outbox. `PostgresOutbox` is the real one;
/// the engine knows nothing of connections or SQL.
protocol DeliveryOutbox: Sendable {
    /// Starts the runs of due campaigns (planned and written in one transaction).
    func startDueRuns(limit: Int, now: Date) throws -> [DeliveryStore.StartedRun]
    /// Plans the next chunk of the runs to devices still planning; returns the deliveries written.
    func planRuns(limit: Int) throws -> Int
    /// Seconds until the next campaign is due, or nil when none is scheduled.
    func secondsUntilNextDue() throws -> Double?
    /// Takes the lease of up to `deviceLimit` ready deliveries of runs to devices, else of up to
    /// `limit` of runs to topics (one per run, `fanOutsAtOnce` across the project, none while
    /// the `fanOutHold` row holds them).
    func claim(owner: String, limit: Int, deviceLimit: Int, lease: Duration, fanOutsAtOnce: Int?, fanOutHold: String?) throws -> [DeliveryStore.Claimed]
    /// Seconds until a delivery may next be claimed, or nil when none is waiting.
    func secondsUntilNextDelivery() throws -> Double?
    /// Extends the leases `owner` still holds on these deliveries.
    func renew(_ ids: [Int64], owner: String, lease: Duration) throws
    /// Writes what FCM answered for deliveries `owner` still holds, and closes those of `closing`
    /// that are finished.
    func record(_ outcomes: [DeliveryStore.Outcome], owner: String, closing runIDs: Set<RunID>) throws
    /// Closes those of these runs whose deliveries are all final.
    func closeRuns(_ runIDs: Set<RunID>) throws
    /// Closes every open run whose deliveries are all final, whoever recorded them.
    func closeFinishedRuns() throws
    /// Marks active devices unseen for `days` days stale; returns how many.
    func markStaleDevices(unseenForDays days: Int) throws -> Int
    /// Folds the devices' changes into the counts segment reach reads.
    func foldDeviceCensus() throws
    /// Counts again the saved segments whose kept reach is older than a few minutes, for at most `budget`.
    func renewSegmentReach(budget: Duration) throws -> Int
    /// Folds finished runs into their counts and drops delivery detail older than `days`.
    func applyRetention(days: Int) throws -> DeliveryRetention.Pass
    /// Expires late runs and moves runs whose sending hours closed on to their next stretch.
    func applyDeliveryControls(now: Date) throws
    /// Seconds until the next delivery control falls due, or nil when none is pending.
    func secondsUntilNextControl() throws -> Double?
    /// Decides the A/B tests whose automatic winner deadline has passed, and rolls each out.
    func decideWinners(now: Date) throws -> [(campaignID: CampaignID, decision: WinnerDecision)]
    /// Takes up to `wanted` tokens of the project's shared bucket, none while fewer than `minimum` are there.
    func takeTokens(_ wanted: Int, atLeast minimum: Int, limit: SendQuotaStore.Limit) throws -> (TokenBucket.Grant, SendQuotaStore.Snapshot)
    /// Returns tokens taken but not used.
    func giveBackTokens(_ count: Int, limit: SendQuotaStore.Limit) throws
    /// Holds every instance's sending for `seconds` (FCM answered 429).
    func holdSending(for seconds: Double, limit: SendQuotaStore.Limit) throws -> SendQuotaStore.Snapshot
    /// Distinct analytics labels sent today (UTC) by every instance.
    func labelsToday() throws -> Int
    /// Moves up to `limit` journey devices due at `now`; answers how many moved and the requests written.
    func advanceJourneys(now: Date, limit: Int) throws -> (moved: Int, requests: Int)
    /// Seconds from `now` until the next journey device is due to move, or nil when none waits.
    func secondsUntilNextJourneyMove(now: Date) throws -> Double?
    /// Enters up to `limit` devices whose date came due by `now` into the journeys entered on a date.
    func enterJourneysOnDates(now: Date, limit: Int) throws -> Int
    /// Calls the A/B winner of the journey send steps whose deadline passed at `now`.
    func decideJourneyWinners(now: Date) throws -> [(campaignID: CampaignID, decision: WinnerDecision)]
}

/// What the delivery engine needs of FCM: one round of v1 requests sent, one answer each.
public protocol MessageSending: Sendable {
    /// Gets ready to send (an OAuth token in hand), so that no delivery is claimed and then held
    /// while a slow token endpoint answers.
    func prepare() throws
    func send(batch: [[UInt8]], concurrency: Int) -> [SendOutcome]
}

extension FCMSender: MessageSending {
    public func prepare() throws {
        _ = try credentials.accessToken()
    }

    public func send(batch: [[UInt8]], concurrency: Int) -> [SendOutcome] {
        send(batch: batch, validateOnly: false, concurrency: concurrency)
    }
}

/// The outbox in PostgreSQL: each step one pooled connection, the store's SQL, planning in `RunStarter`.
struct PostgresOutbox: DeliveryOutbox {
    let pool: PostgresPool
    let starter: RunStarter
    let store = DeliveryStore()
    let quota = SendQuotaStore()

    func startDueRuns(limit: Int, now: Date) throws -> [DeliveryStore.StartedRun] {
        try pool.withConnection { try starter.startDueRuns(limit: limit, now: now, on: $0) }
    }

    func planRuns(limit: Int) throws -> Int {
        try pool.withConnection { try starter.planRuns(limit: limit, on: $0) }
    }

    func secondsUntilNextDue() throws -> Double? {
        try pool.withConnection { try store.secondsUntilNextDue(approvalsRequired: starter.approvalsRequired, on: $0) }
    }

    func claim(owner: String, limit: Int, deviceLimit: Int, lease: Duration, fanOutsAtOnce: Int?, fanOutHold: String?) throws -> [DeliveryStore.Claimed] {
        try pool.withConnection {
            try store.claim(owner: owner, limit: limit, deviceLimit: deviceLimit, lease: lease, fanOutsAtOnce: fanOutsAtOnce, fanOutHold: fanOutHold, on: $0)
        }
    }

    func secondsUntilNextDelivery() throws -> Double? {
        try pool.withConnection { try store.secondsUntilNextDelivery(on: $0) }
    }

    func renew(_ ids: [Int64], owner: String, lease: Duration) throws {
        try pool.withConnection { try store.renew(ids, owner: owner, lease: lease, on: $0) }
    }

    func record(_ outcomes: [DeliveryStore.Outcome], owner: String, closing runIDs: Set<RunID>) throws {
        try pool.withConnection { try store.record(outcomes, owner: owner, runIDs: runIDs, on: $0) }
    }

    func closeRuns(_ runIDs: Set<RunID>) throws {
        try pool.withConnection { connection in try connection.transaction { try store.closeRuns(Array(runIDs), on: $0) } }
    }

    func closeFinishedRuns() throws {
        try pool.withConnection { try store.closeFinishedRuns(on: $0) }
    }

    func markStaleDevices(unseenForDays days: Int) throws -> Int {
        try pool.withConnection { try DeviceStore().markStale(unseenForDays: days, on: $0) }
    }

    func renewSegmentReach(budget: Duration) throws -> Int {
        try pool.withConnection { try SegmentReach.renewStale(budget: budget, on: $0) }
    }

    func foldDeviceCensus() throws {
        _ = try pool.withConnection { try DeviceCensus.fold(on: $0) }
    }

    func applyRetention(days: Int) throws -> DeliveryRetention.Pass {
        try pool.withConnection { try DeliveryRetention(days: days).apply(on: $0) }
    }

    func applyDeliveryControls(now: Date) throws {
        try pool.withConnection { try starter.applyDeliveryControls(now: now, on: $0) }
    }

    func decideWinners(now: Date) throws -> [(campaignID: CampaignID, decision: WinnerDecision)] {
        try pool.withConnection { try WinnerDecider(buckets: starter.buckets, approvalsRequired: starter.approvalsRequired).decideDue(now: now, on: $0) }
    }

    func secondsUntilNextControl() throws -> Double? {
        try pool.withConnection { try store.secondsUntilNextControl(on: $0) }
    }

    func takeTokens(_ wanted: Int, atLeast minimum: Int, limit: SendQuotaStore.Limit) throws -> (TokenBucket.Grant, SendQuotaStore.Snapshot) {
        try pool.withConnection { try quota.take(wanted, atLeast: minimum, limit: limit, on: $0) }
    }

    func giveBackTokens(_ count: Int, limit: SendQuotaStore.Limit) throws {
        try pool.withConnection { try quota.giveBack(count, limit: limit, on: $0) }
    }

    func holdSending(for seconds: Double, limit: SendQuotaStore.Limit) throws -> SendQuotaStore.Snapshot {
        try pool.withConnection { try quota.hold(for: seconds, limit: limit, on: $0) }
    }

    func labelsToday() throws -> Int {
        try pool.withConnection { try LabelDayStore().today(on: $0).used }
    }

    func advanceJourneys(now: Date, limit: Int) throws -> (moved: Int, requests: Int) {
        try pool.withConnection { try JourneyAdvancer().advance(now: now, limit: limit, on: $0) }
    }

    func secondsUntilNextJourneyMove(now: Date) throws -> Double? {
        try pool.withConnection { connection in
            let moves = [try JourneyAdvancer().secondsUntilNextMove(now: now, on: connection), try JourneyDates().secondsUntilNext(now: now, on: connection)]
            return moves.compactMap { $0 }.min()
        }
    }

    func enterJourneysOnDates(now: Date, limit: Int) throws -> Int {
        try pool.withConnection { try JourneyDates().enterDue(now: now, limit: limit, on: $0) }
    }

    func decideJourneyWinners(now: Date) throws -> [(campaignID: CampaignID, decision: WinnerDecision)] {
        try pool.withConnection { try JourneyWinners().decideDue(now: now, on: $0) }
    }
}
