import Foundation
import HeraldCore
import HeraldJSON
import HeraldPostgres

/// At an A/B test's winner deadline (`auto_winner.after_minutes` after its run was due), decides
/// with `WinnerDecision` (HeraldCore) on the events the apps reported and rolls the winner (or
/// the fallback) out to the holdout; the decision and its figures are kept for the report and
/// audited. Each campaign is decided once, by whichever scheduler locks it first.
struct WinnerDecider: Sendable {
    let buckets: AudienceBuckets
    /// Whether the roll-out sends only an approved version (`HERALD_APPROVALS`).
    var approvalsRequired = false
    /// The scheduler acts as no person: the audit log names it.
    static let actor = Actor(name: "scheduler")

    /// Decides every campaign whose deadline has passed; returns their decisions.
    func decideDue(now: Date, on connection: PostgresConnection) throws -> [(campaignID: CampaignID, decision: WinnerDecision)] {
        try connection.transaction { connection in
            let due = try connection.query("""
                SELECT c.id FROM campaigns c
                WHERE c.content ? 'auto_winner' AND c.status = ANY(\([CampaignStatus.sent, .partiallyFailed]))
                  AND NOT EXISTS (SELECT 1 FROM winner_decisions w WHERE w.campaign_id = c.id)
                  AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.campaign_id = c.id AND r.rollout_variant IS NOT NULL)
                  AND (SELECT min(r.occurrence) FROM runs r WHERE r.campaign_id = c.id)
                      + make_interval(mins => (c.content -> 'auto_winner' ->> 'after_minutes')::integer) <= \(now)
                ORDER BY c.id LIMIT 20 FOR UPDATE OF c SKIP LOCKED
                """).map { try $0.decode(CampaignID.self, at: 0) }
            return try due.compactMap { id in try decide(id, now: now, on: connection).map { (id, $0) } }
        }
    }

    func decide(_ id: CampaignID, now: Date, on connection: PostgresConnection) throws -> WinnerDecision? {
        guard let record = try CampaignStore().find(id: id, on: connection), case .success(let spec) = CampaignSpec.parse(record.content),
              let rule = spec.autoWinner else { return nil }
        let counts = try EventStore().counts(campaignID: id.description, on: connection)
        let allocation = FanOutPlanner.plan(campaign: spec, buckets: buckets, campaignID: id.description, sendTime: now).allocation
        let figures = spec.effectiveVariants.map { variant -> WinnerDecision.Figures in
            let events = counts[variant.key]
            let share = allocation.first { $0.key == variant.key }?.buckets.count ?? 0
            return rule.metric == .opens
                ? WinnerDecision.Figures(key: variant.key, successes: events?.opens ?? 0, trials: share)
                : WinnerDecision.Figures(key: variant.key, successes: events?.conversions ?? 0, trials: events?.opens ?? 0)
        }
        let decision = WinnerDecision.decide(rule, figures: figures)
        _ = try connection.execute("""
            INSERT INTO winner_decisions (campaign_id, variant, decision) VALUES (\(id)::uuid, \(decision.variantToSend), \(decision.json.serializedString())::jsonb)
            """)
        var details = decision.json.objectValue ?? [:]
        details["metric"] = .string(rule.metric.rawValue)
        details["confidence"] = .number(Double(rule.confidence))
        try AuditLog().record(.campaignWinnerDecided, by: Self.actor, object: .campaign(id), details: details, on: connection)
        if let variant = decision.variantToSend {
            _ = try WinnerRollout(buckets: buckets, approvalsRequired: approvalsRequired).send(record, variantKey: variant, by: Self.actor, now: now,
                                                         details: ["automatic": .bool(true), "won": .bool(decision.won)], on: connection)
        }
        return decision
    }

    /// The decision kept for a campaign, for the report.
    static func decision(of id: CampaignID, on connection: PostgresConnection) throws -> CampaignReport.DecidedWinner? {
        try connection.query("""
            SELECT decision::text, decided_at FROM winner_decisions WHERE campaign_id = \(id)::uuid
            """).first.map { row in
            let (text, at) = try row.decode((String, Date).self, columns: "decision", "decided_at")
            guard let decision = WinnerDecision(json: try JSON.parse(text)) else {
                throw AppError.unavailable("The stored winner decision of campaign \(id) can no longer be read.")
            }
            return CampaignReport.DecidedWinner(decision: decision, decidedAt: at)
        }
    }
}
