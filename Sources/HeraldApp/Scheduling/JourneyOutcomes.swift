import HeraldCore
import HeraldPostgres

/// What became of the requests a journey's send steps wrote, per step campaign, read as a
/// campaign's report reads its runs: the requests not folded yet by status, the folded by their
/// counters; the opens and conversions reported for each (per device where the app says); and
/// the conversions a journey's goal makes of its last message.
struct JourneyOutcomes: Sendable {
    struct Outcome: Sendable, Equatable {
        var delivered = 0, failed = 0, capped = 0, waiting = 0, cancelled = 0, expired = 0
        var opened = 0, converted = 0
    }

    func outcomes(of campaigns: [CampaignID], on connection: PostgresConnection) throws -> [CampaignID: Outcome] {
        guard !campaigns.isEmpty else { return [:] }
        var result: [CampaignID: Outcome] = [:]
        let rows = try connection.query("""
            SELECT campaign_id, status, count(*)::bigint AS n FROM deliveries
            WHERE campaign_id = ANY(\(campaigns)::uuid[]) AND run_id NOT IN (SELECT id FROM runs WHERE campaign_id = ANY(\(campaigns)::uuid[]) AND folded)
            GROUP BY 1, 2
            UNION ALL
            SELECT r.campaign_id, c.outcome, sum(c.n)::bigint FROM runs r JOIN run_counts c ON c.run_id = r.id
            WHERE r.campaign_id = ANY(\(campaigns)::uuid[]) AND c.outcome <> 'planned' GROUP BY 1, 2
            """)
        for row in rows {
            let (campaign, status, n) = try row.decode((CampaignID, String, Int).self, columns: "campaign_id", "status", "n")
            var outcome = result[campaign] ?? Outcome()
            switch DeliveryStatus(rawValue: status) {
            case .sent?: outcome.delivered += n
            case .failed?: outcome.failed += n
            case .capped?: outcome.capped += n
            case .cancelled?: outcome.cancelled += n
            case .expired?: outcome.expired += n
            case .pending?, .retrying?: outcome.waiting += n
            default: break
            }
            result[campaign] = outcome
        }
        let events = try connection.query("""
            SELECT campaign_id,
                   count(DISTINCT coalesce('device:' || device_token, 'event:' || id)) FILTER (WHERE type = \(constants: [EventType.open])) AS opens,
                   count(DISTINCT coalesce('device:' || device_token, 'event:' || id)) FILTER (WHERE type = \(constants: [EventType.conversion])) AS conversions
            FROM events WHERE campaign_id = ANY(\(campaigns)::uuid[]) GROUP BY 1
            """)
        for row in events {
            let (campaign, opens, conversions) = try row.decode((CampaignID, Int, Int).self, columns: "campaign_id", "opens", "conversions")
            result[campaign, default: Outcome()].opened = opens
            result[campaign, default: Outcome()].converted = conversions
        }
        return result
    }

    /// The devices a step campaign's requests reached, per variant (the folded runs by their counters).
    func sentPerVariant(of campaign: CampaignID, on connection: PostgresConnection) throws -> [String: Int] {
        let rows = try connection.query("""
            SELECT variant_key, count(*)::bigint AS n FROM deliveries
            WHERE campaign_id = \(campaign)::uuid AND status = \(constants: [DeliveryStatus.sent])
              AND run_id NOT IN (SELECT id FROM runs WHERE campaign_id = \(campaign)::uuid AND folded)
            GROUP BY 1
            UNION ALL
            SELECT c.variant_key, sum(c.n)::bigint FROM runs r JOIN run_counts c ON c.run_id = r.id
            WHERE r.campaign_id = \(campaign)::uuid AND c.outcome = \(DeliveryStatus.sent) GROUP BY 1
            """)
        var sent: [String: Int] = [:]
        for row in rows {
            let (variant, n) = try row.decode((String, Int).self, columns: "variant_key", "n")
            sent[variant, default: 0] += n
        }
        return sent
    }

    /// A goal reached counts as a conversion of the last message the journey sent the device (its
    /// variant, as sent): the step's campaign report and A/B test see it as an app's conversion.
    /// One per stay in the journey: only the event that takes the device out records it (a
    /// retried event is not new, and moves no one), so its id names nothing of the device.
    func recordGoalConversions(of left: [(JourneyID, Int, String)], on connection: PostgresConnection) throws {
        guard !left.isEmpty else { return }
        _ = try connection.execute("""
            INSERT INTO events (id, campaign_id, variant, type, device_token)
            SELECT 'journey-goal:' || gen_random_uuid(), js.campaign_id, s.last_variant, \(EventType.conversion), x.t
            FROM unnest(\(left.map(\.0)), \(left.map { String($0.1) }), \(left.map(\.2))) AS x(j, v, t)
            JOIN journey_states s ON s.journey_id = x.j::uuid AND s.device_token = x.t
            JOIN journey_sends js ON js.journey_id = x.j::uuid AND js.version = x.v::integer AND js.step = s.last_send
            -- Sent that message (a variant written for it), and not refused by FCM.
            WHERE s.last_variant IS NOT NULL
              AND NOT EXISTS (SELECT 1 FROM delivery_failures f WHERE f.device_token = x.t AND f.campaign_id = js.campaign_id)
            ON CONFLICT (id) DO NOTHING
            """)
    }
}
