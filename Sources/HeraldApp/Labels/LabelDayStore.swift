import HeraldCore
import HeraldJSON
import HeraldPostgres

/// The labels sent each UTC day (`label_days`), shared by every instance: what decides `auto`
/// labelling when a run starts, and what the review page and /metrics show of the day's budget.
struct LabelDayStore: Sendable {
    /// The labels a campaign would send one per variant, and as one for the campaign. A campaign
    /// without variants sends its one effective variant's (it counted none: issue 37).
    static func candidates(_ spec: CampaignSpec, campaignID: String) -> (perVariant: [String], perCampaign: [String]) {
        func labels(_ mode: LabelMode) -> [String] {
            var labelled = spec
            labelled.options.labels = mode
            return Array(Set(spec.effectiveVariants.compactMap { Renderer.analyticsLabel(campaign: labelled, variantKey: $0.key, campaignID: campaignID) })).sorted()
        }
        return (labels(.perVariant), labels(.perCampaign))
    }

    /// Labels sent today (UTC), and which of `labels` are among them.
    func today(among labels: [String] = [], on connection: PostgresConnection) throws -> (used: Int, known: Set<String>) {
        let row = try connection.query("""
            SELECT count(*)::bigint AS used, coalesce(array_agg(label) FILTER (WHERE label = ANY(\(labels))), '{}') AS known
            FROM label_days WHERE day = (now() AT TIME ZONE 'UTC')::date
            """).first
        return (try row?.decode(Int.self, column: "used") ?? 0, Set(try row?.decode([String].self, column: "known") ?? []))
    }

    /// Resolves the campaign's labelling for a run starting now (in the run's transaction: one
    /// start at a time decides, across instances) and records the labels it will send.
    func resolve(_ spec: CampaignSpec, campaignID: String, on connection: PostgresConnection) throws -> LabelMode {
        _ = try connection.query("SELECT pg_advisory_xact_lock(\(Self.lockKey))")
        let (perVariant, perCampaign) = Self.candidates(spec, campaignID: campaignID)
        let (used, known) = try today(among: perVariant + perCampaign, on: connection)
        let mode = LabelBudget.resolve(spec.options.labels ?? .auto, variants: spec.variants.count, used: used,
                                       addedPerVariant: Set(perVariant).subtracting(known).count,
                                       addedPerCampaign: Set(perCampaign).subtracting(known).count)
        let sent = switch mode {
        case .auto, .perVariant: perVariant
        case .perCampaign: perCampaign
        case .unlabelled: [String]()
        }
        if !sent.isEmpty {
            _ = try connection.execute("""
                INSERT INTO label_days (day, label, campaign_id)
                SELECT (now() AT TIME ZONE 'UTC')::date, l, \(campaignID)::uuid FROM unnest(\(sent)) AS l
                ON CONFLICT DO NOTHING
                """)
        }
        return mode
    }

    /// A label a send outside any run carries (a test message's), if the day has room for it (or
    /// it went out today already): recorded, so that the budget and the metric count it; nil
    /// when it would pass FCM's daily limit, and the message then goes unlabelled.
    func admit(_ label: String, campaignID: String, on connection: PostgresConnection) throws -> String? {
        _ = try connection.query("SELECT pg_advisory_xact_lock(\(Self.lockKey))")
        let (used, known) = try today(among: [label], on: connection)
        guard known.contains(label) || !LabelBudget.passesLimit(used: used, added: 1) else { return nil }
        _ = try connection.execute("""
            INSERT INTO label_days (day, label, campaign_id) VALUES ((now() AT TIME ZONE 'UTC')::date, \(label), \(campaignID)::uuid)
            ON CONFLICT DO NOTHING
            """)
        return label
    }

    /// Forgets the labels of days more than `days` ago.
    func dropDays(olderThan days: Int, on connection: PostgresConnection) throws {
        _ = try connection.execute("""
            DELETE FROM label_days WHERE day < (now() AT TIME ZONE 'UTC')::date - \(days)::integer
            """)
    }

    /// The advisory lock that orders label decisions across instances ("herald:labels").
    static let lockKey: Int64 = 0x6865_7261_6C64_4C42

    /// `content` with `options.labels` set to `mode`, as the run freezes it.
    static func content(_ content: JSON, labelled mode: LabelMode) -> JSON {
        guard case .object(var campaign) = content else { return content }
        var options = campaign["options"]?.objectValue ?? [:]
        options["labels"] = .string(mode.rawValue)
        campaign["options"] = .object(options)
        return .object(campaign)
    }
}
