import Foundation
import HeraldCore
import HeraldJSON
import HeraldPostgres

/// Calls the A/B winner of journey send steps that ask for one (`auto_winner` in the step's
/// message): `after_minutes` past the step's first send, `WinnerDecision` (the campaigns' test)
/// on what the step sent each variant and what came of it. The decision is kept as a campaign's
/// is (`winner_decisions`, the report reads it there) and from then on `JourneyRuns` sends the
/// winner to every device that reaches the step (or nothing, with no winner and fallback "none").
/// Each step is decided once, by whichever instance locks it first.
struct JourneyWinners: Sendable {
    let catalog: JourneyCatalog

    init(catalog: JourneyCatalog = .shared) { self.catalog = catalog }

    /// Decides every step whose deadline has passed at `now`; answers the decisions by the step's campaign.
    func decideDue(now: Date, on connection: PostgresConnection) throws -> [(campaignID: CampaignID, decision: WinnerDecision)] {
        try connection.transaction { connection in
            // Steps with a test still open that have sent (their first run began), of journeys
            // that still send; the version's definition says whether the step asks for a winner.
            let open = try connection.query("""
                SELECT s.journey_id, s.version, s.step, s.campaign_id,
                       extract(epoch FROM (SELECT min(r.started_at) FROM runs r WHERE r.campaign_id = s.campaign_id))::float8 AS first_send
                FROM journey_sends s JOIN journeys j ON j.id = s.journey_id
                WHERE j.status IN (\(constants: [JourneyStatus.live, .paused]))
                  AND EXISTS (SELECT 1 FROM runs r WHERE r.campaign_id = s.campaign_id)
                  AND NOT EXISTS (SELECT 1 FROM winner_decisions w WHERE w.campaign_id = s.campaign_id)
                ORDER BY s.campaign_id FOR UPDATE OF s SKIP LOCKED
                """).map { try $0.decode((JourneyID, Int, Int, CampaignID, Double).self, columns: "journey_id", "version", "step", "campaign_id", "first_send") }
            guard !open.isEmpty else { return [] }
            let journeys = try catalog.versions(Set(open.map { JourneyCatalog.Key(journeyID: $0.0, version: $0.1) }), on: connection)
            var decided: [(CampaignID, WinnerDecision)] = []
            for (journeyID, version, step, campaignID, firstSend) in open {
                guard let steps = journeys[JourneyCatalog.Key(journeyID: journeyID, version: version)]?.definition.steps, steps.indices.contains(step),
                      case .send(let spec, _) = steps[step].kind,
                      let rule = spec.autoWinner,
                      Date(timeIntervalSince1970: firstSend).addingTimeInterval(Double(rule.afterMinutes) * 60) <= now else { continue }
                let decision = try decide(campaignID, spec: spec, rule: rule, on: connection)
                var details = decision.json.objectValue ?? [:]
                details["metric"] = .string(rule.metric.rawValue)
                details["confidence"] = .number(Double(rule.confidence))
                details["journey"] = .string(journeyID.description)
                details["step"] = .number(Double(step))
                try AuditLog().record(.campaignWinnerDecided, by: WinnerDecider.actor, object: .campaign(campaignID), details: details, on: connection)
                decided.append((campaignID, decision))
            }
            return decided
        }
    }

    /// The step's test on its figures so far: per variant, the devices sent it (opens) or the
    /// opens (conversions) as trials.
    private func decide(_ campaignID: CampaignID, spec: CampaignSpec, rule: WinnerRule, on connection: PostgresConnection) throws -> WinnerDecision {
        let events = try EventStore().counts(campaignID: campaignID.description, on: connection)
        let sent = try JourneyOutcomes().sentPerVariant(of: campaignID, on: connection)
        let figures = spec.effectiveVariants.map { variant -> WinnerDecision.Figures in
            let counts = events[variant.key]
            return rule.metric == .opens
                ? WinnerDecision.Figures(key: variant.key, successes: counts?.opens ?? 0, trials: sent[variant.key] ?? 0)
                : WinnerDecision.Figures(key: variant.key, successes: counts?.conversions ?? 0, trials: counts?.opens ?? 0)
        }
        let decision = WinnerDecision.decide(rule, figures: figures)
        _ = try connection.execute("""
            INSERT INTO winner_decisions (campaign_id, variant, decision)
            VALUES (\(campaignID)::uuid, \(decision.variantToSend), \(decision.json.serializedString())::jsonb)
            """)
        // The test's runs take no more devices: the next opens with the decision.
        try JourneyRuns().close(step: campaignID, on: connection)
        return decision
    }

    /// What a step sends now: its test (nil), or what its decision said (the winner, or nothing).
    static func decided(_ campaignID: CampaignID, on connection: PostgresConnection) throws -> JourneyRuns.Decided? {
        try connection.query("SELECT variant FROM winner_decisions WHERE campaign_id = \(campaignID)::uuid").first.map { row in
            try row.decode(String?.self, at: 0).map(JourneyRuns.Decided.variant) ?? .nothing
        }
    }
}
