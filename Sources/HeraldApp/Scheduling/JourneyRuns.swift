import Foundation
import HeraldCore
import HeraldJSON
import HeraldPostgres

/// The runs of a journey's send steps. A step sends through a run of kind `journey` that stays
/// open (planning) while it takes devices, one a day (UTC): each day's run counts its analytics
/// label in that day's budget, freezes the project's control group, and is reported as any run.
/// The day's run is opened by the first device to reach the step that day; the day before's then
/// closes once its devices are answered. Its devices are written as batches of a streamed run
/// (`device_batches`, no row per device), which the engine claims, renders by the run's planner
/// and records as it does a campaign's. A step whose test was called opens a run that sends the
/// winner to every device (its `rollout_variant`).
struct JourneyRuns: Sendable {
    struct Open: Sendable {
        var id: RunID
        var spec: CampaignSpec
        var controlGroup: ControlGroup?
        /// The variant the run sends every device (its test's winner); nil: the test's split.
        var winner: String?
        /// The step's test was called without a winner and its fallback is none: nothing is sent.
        var sendsNothing: Bool
    }

    /// What a step whose test was called sends every device that reaches it.
    enum Decided: Sendable, Equatable {
        case variant(String)
        /// No winner, and the rule's fallback is none.
        case nothing
    }

    /// The planner of the step's message for the devices reaching it now, as the engine's claim
    /// will render it from the run (nil: it sends them nothing).
    func planner(_ open: Open, campaignID: CampaignID, now: Date) -> DevicePlanner? {
        guard !open.sendsNothing else { return nil }
        var planner = open.winner.flatMap { DevicePlanner(only: $0, of: open.spec.forSending, campaignID: campaignID.description, sendTime: now) }
            ?? DevicePlanner(campaign: open.spec.forSending, campaignID: campaignID.description, sendTime: now)
        planner.controlGroup = open.controlGroup
        return planner
    }

    /// The step campaign's run of today, opened now if it has none.
    func open(_ campaignID: CampaignID, on connection: PostgresConnection) throws -> Open {
        if let open = try today(campaignID, on: connection) { return open }
        // One opener at a time per campaign: two instances reaching the step at once share a run.
        _ = try connection.query("SELECT pg_advisory_xact_lock(hashtext(\("journey-run:" + campaignID.description)))")
        if let open = try today(campaignID, on: connection) { return open }
        guard let row = try connection.query("SELECT content::text, version FROM campaigns WHERE id = \(campaignID)::uuid").first else {
            throw AppError.unavailable("The journey step's campaign \(campaignID) is gone.")
        }
        let (content, version) = try row.decode((String, Int).self, columns: "content", "version")
        guard let json = try? JSON.parse(content), case .success(var spec) = CampaignSpec.parse(json) else {
            throw AppError.unavailable("The journey step's campaign \(campaignID) no longer reads as a message.")
        }
        spec.options.labels = try LabelDayStore().resolve(spec, campaignID: campaignID.description, on: connection)
        let controlGroup = try ContactPolicyStore().read(on: connection).controlGroup.forRun(of: spec)
        let decided = try JourneyWinners.decided(campaignID, on: connection)
        let winner: String? = if case .variant(let key)? = decided { key } else { nil }
        // Its devices are named batch by batch: the audience a streamed run keeps is none of them.
        guard let written = try RunWriter().insert([NewRun(kind: .journey, campaignID: campaignID, occurrence: nil, version: version,
                                                           content: spec.toJSON(), audience: .tokens([]), rolloutVariant: winner,
                                                           controlGroup: controlGroup)], on: connection).first else {
            throw AppError.unavailable("The journey step's run could not be written; try again.")
        }
        // Yesterday's run takes no more: it closes when its last request is answered.
        _ = try connection.execute("""
            UPDATE runs SET planning = false WHERE campaign_id = \(campaignID)::uuid AND kind = \(constants: [RunKind.journey]) AND planning AND id <> \(written.runID)::uuid
            """)
        return Open(id: written.runID, spec: spec, controlGroup: controlGroup, winner: winner, sendsNothing: decided == .nothing)
    }

    private func today(_ campaignID: CampaignID, on connection: PostgresConnection) throws -> Open? {
        guard let row = try connection.query("""
            SELECT id, content::text, control_basis_points, control_salt, rollout_variant FROM runs
            WHERE campaign_id = \(campaignID)::uuid AND kind = \(constants: [RunKind.journey]) AND status = \(constants: [RunStatus.sending]) AND planning
              AND started_at >= date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
            ORDER BY started_at DESC LIMIT 1
            """).first else { return nil }
        let (id, content, basisPoints, salt, winner) = try row.decode((RunID, String, Int, String?, String?).self,
                                                                     columns: "id", "content", "control_basis_points", "control_salt", "rollout_variant")
        guard let json = try? JSON.parse(content), case .success(let spec) = CampaignSpec.parse(json) else { return nil }
        return Open(id: id, spec: spec, controlGroup: RunMessages.controlGroup(basisPoints: basisPoints, salt: salt), winner: winner,
                    sendsNothing: try JourneyWinners.decided(campaignID, on: connection) == .nothing)
    }

    /// Ends the step's runs' taking of devices (its test was called: the next run sends the winner);
    /// each closes when its last device is answered.
    func close(step campaignID: CampaignID, on connection: PostgresConnection) throws {
        _ = try connection.execute("""
            UPDATE runs SET planning = false WHERE campaign_id = \(campaignID)::uuid AND kind = \(constants: [RunKind.journey]) AND planning
            """)
    }

    /// Ends the journey's runs' taking of requests (stopped): each closes when its last is answered.
    func close(journey journeyID: JourneyID, on connection: PostgresConnection) throws {
        _ = try connection.execute("""
            UPDATE runs SET planning = false
            WHERE kind = \(constants: [RunKind.journey]) AND planning AND campaign_id IN (SELECT id FROM campaigns WHERE journey_id = \(journeyID)::uuid)
            """)
    }
}
