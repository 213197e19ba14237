import Foundation
import HeraldCore
import HeraldJSON
import HeraldPostgres

/// The rules every request passes on its way to FCM, whatever kind of send wrote it (a topic or
/// condition fan-out, a campaign to devices planned or streamed, a one-call send, a winner's
/// roll-out), written once here and read by every claim. Each says which kinds it exempts, and why.
///
/// In the order a request meets them:
/// 1. **The approved version** (`HERALD_APPROVALS`): a run starts only from the version a
///    publisher approved (`DeliveryStore.lockDue`), and a one-call send of a template sends that
///    version; an inline one-call message needs a key an admin allowed (`SendService`), a test
///    send a listed test device (`TestDeviceService`). No kind is exempt.
/// 2. **Pause, cancel, expiry and sending hours**: `runMaySendNow`, in the claim itself, for
///    every kind (a cancelled run is no longer `sending`).
/// 3. **The shared quota and `max_per_minute`**: the engine takes the project's tokens before it
///    claims (`DeliveryEngine+Quota`); a paced run's requests fall due a spacing apart, so a paced
///    run is never streamed (`RunStarter`). Test sends are exempt: one to twenty messages, sent
///    at once, counted by FCM against the same quota.
/// 4. **Frequency caps** (`applyContactPolicy`, on every claim of requests to devices), **quiet
///    categories and the control group** (`DevicePlanner`, as each device's request is made, planned
///    or streamed): transactional messages pass by (an order update is no marketing), and topic or
///    condition fan-outs are exempt because FCM does not say which devices a topic reaches (the
///    review and the composer say so). Test sends are exempt: the tester named the devices.
/// 5. **FID moves and erasure**: a streamed run reads the registry as it sends (`StreamedRunMoves`),
///    a planned request is re-aimed in the move's transaction; a forgotten device's requests are
///    deleted with it. Topics are FCM's to resolve.
/// 6. **The label budget**: every request carries a label the day's budget counted
///    (`LabelDayStore`), whatever sent it.
/// 7. **Rendering at send time**: a streamed request is rendered as it is claimed; a stored one's
///    iOS expiry is moved on to the moment it is sent (`DeliveryStore.claimed`).
enum SendRules {
    /// Whether the run `r` may send now: it is sending, its campaign is not paused, it has not
    /// passed its latest-delivery time, and its sending hours are open.
    static let runMaySendNow: PostgresQuery = """
        r.status = \(constants: [RunStatus.sending]) AND \(fragment: campaignOfRunNotPaused)
          AND (r.expires_at IS NULL OR r.expires_at > now())
          AND (r.window_closes_at IS NULL OR (r.window_opens_at <= now() AND now() < r.window_closes_at))
        """

    /// Whether the campaign of run `r` is not paused (a paused campaign's requests wait, unclaimed).
    static let campaignOfRunNotPaused: PostgresQuery = """
        NOT EXISTS (SELECT 1 FROM campaigns held WHERE held.id = r.campaign_id AND held.status = \(constants: [CampaignStatus.paused]))
        """

    /// Whether the stored request `d` may be claimed now: still open, due, unleased, and not past
    /// its own wave's latest-delivery time (recipient time; the sweep expires it after).
    static let requestMaySendNow: PostgresQuery = """
        d.status IN (\(constants: DeliveryStatus.open)) AND d.next_attempt_at <= now()
          AND (d.lease_expires_at IS NULL OR d.lease_expires_at < now())
          AND (d.expires_at IS NULL OR d.expires_at > now())
        """

    /// The contact policy on requests to devices just claimed (`tokens` beside them): each run's
    /// content says its category and whether it is transactional, which passes by. A request
    /// the caps stop comes back `capped`, and is recorded so, never sent.
    static func applyContactPolicy(_ claimed: [DeliveryStore.Claimed], tokens: [DeviceToken], layout: DeviceTouchStore.Layout,
                                   contents: [RunID: CampaignSpec], on connection: PostgresConnection) throws -> [DeliveryStore.Claimed] {
        guard !claimed.isEmpty else { return claimed }
        let caps = try ContactPolicyStore().caps(on: connection)
        guard !caps.isEmpty else { return claimed }
        var checked = claimed
        for (runID, spec) in contents where !spec.delivery.transactional {
            let indices = claimed.indices.filter { claimed[$0].runID == runID }
            guard !indices.isEmpty else { continue }
            let stopped = try DeviceTouchStore().applyCaps(caps, to: indices.map { claimed[$0] }, tokens: indices.map { tokens[$0].description },
                                                           spec: spec, runID: runID, layout: layout, on: connection)
            for (index, request) in zip(indices, stopped) { checked[index] = request }
        }
        return checked
    }

    /// What the rules do now to a campaign to `audience`, read from up to `limit` of its devices
    /// (the first in token order: tokens are random, so they are a fair sample): the same
    /// decisions a claim makes, by the same code (`DevicePlanner`'s exclusions, then the caps'
    /// decision of `DeviceTouchStore`), counting nothing. The review's forecast.
    static func forecast(_ spec: CampaignSpec, campaignID: CampaignID?, audience: DeviceAudience, controlGroup: ControlGroup?,
                         caps: FrequencyCaps, limit: Int, on connection: PostgresConnection) throws -> Forecast {
        let devices = try DeviceStore().active(audience, after: nil, limit: limit, on: connection)
        // A campaign not saved yet has no id: its devices fall in buckets of the empty one.
        var planner = DevicePlanner(campaign: spec.forSending, campaignID: campaignID?.description ?? "", sendTime: Date())
        planner.controlGroup = controlGroup
        var control = 0, sending: [String] = []
        for stored in devices {
            switch planner.skip(of: stored.device) {
            case .controlGroup: control += 1
            case nil: sending.append(stored.device.token)
            case .holdout, .quietCategory: break
            }
        }
        let admitted = spec.delivery.transactional || caps.isEmpty ? Set(sending)
            : try DeviceTouchStore().admissible(sending, category: spec.delivery.category, caps: caps, on: connection)
        return Forecast(read: devices.count, controlGroup: control, capped: sending.count - admitted.count)
    }

    /// Of the devices a forecast read, those in the control group and those the caps hold back.
    struct Forecast: Sendable, Equatable {
        var read: Int
        var controlGroup: Int
        var capped: Int
    }
}
