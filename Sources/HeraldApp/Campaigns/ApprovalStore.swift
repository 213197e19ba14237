import HeraldCore
import HeraldJSON
import HeraldPostgres

/// The SQL of a campaign's approval. The rules (who may, from which state) are `ApprovalState`'s;
/// these write what the service decided, inside its transaction. None changes the version.
struct ApprovalStore: Sendable {
    let campaigns = CampaignStore()

    /// Moves the campaign to `state`, keeping the last decision's comment only when asked.
    func set(_ id: CampaignID, to state: ApprovalState, clearingDecision: Bool, on connection: PostgresConnection) throws -> CampaignRecord? {
        try CampaignStore.records(try connection.query("""
            UPDATE campaigns SET approval = \(state),
                approval_comment = CASE WHEN \(clearingDecision) THEN NULL ELSE approval_comment END,
                approval_decided_by = CASE WHEN \(clearingDecision) THEN NULL ELSE approval_decided_by END,
                approval_decision = CASE WHEN \(clearingDecision) THEN NULL ELSE approval_decision END
            WHERE id = \(id)::uuid RETURNING \(fragment: CampaignStore.columns)
            """)).first
    }

    /// Records a decision; an approval also keeps the version and content approved, for the next diff.
    func decide(_ id: CampaignID, approved: Bool, comment: String?, by identity: String, on connection: PostgresConnection) throws -> CampaignRecord? {
        let state: ApprovalState = approved ? .approved : .rejected
        return try CampaignStore.records(try connection.query("""
            UPDATE campaigns SET approval = \(state), approval_comment = \(comment), approval_decided_by = \(identity), approval_decision = \(state),
                approved_version = CASE WHEN \(approved) THEN version ELSE approved_version END,
                approved_content = CASE WHEN \(approved) THEN content ELSE approved_content END
            WHERE id = \(id)::uuid RETURNING \(fragment: CampaignStore.columns)
            """)).first
    }

    /// The content approved last, if any version was.
    func approvedContent(_ id: CampaignID, on connection: PostgresConnection) throws -> JSON? {
        guard let text = try connection.query("SELECT approved_content::text FROM campaigns WHERE id = \(id)::uuid")
            .first?.decode(String?.self, at: 0) else { return nil }
        return try JSON.parse(text)
    }
}
