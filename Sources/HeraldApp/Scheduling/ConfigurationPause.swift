import FCMMessage
import HeraldCore
import HeraldJSON
import HeraldPostgres

/// Stops a run when FCM's answers say Herald's configuration is wrong, not that its devices are
/// gone (`fcm.md`, "Credential errors concern every request of the project"):
///
/// - an answer that concerns every request (`FCMErrorCode.projectWide`: PERMISSION_DENIED,
///   THIRD_PARTY_AUTH_ERROR, a refused fresh token, a 4xx that is not FCM's) pauses the run's
///   campaign at the first one;
/// - SENDER_ID_MISMATCH (another project's tokens) pauses it once it is most of the run's answers
///   (at least 10, half or more): a few such tokens are the registry's, most of them the key's.
///
/// No device is marked invalid for either, and nothing is lost: while the campaign is paused, the
/// run's requests refused so are put back to be sent when it is resumed (once the key, the URL
/// or the proxy is fixed). A campaign that cannot be paused (a template that already finished)
/// keeps them failed, so a wrong key never retries without end. In the recorder's transaction.
struct ConfigurationPause {
    static let projectWide = FCMErrorCode.projectWide.map(\.rawValue).sorted()
    static let foreignTokens = FCMErrorCode.senderIDMismatch.rawValue
    /// Every code whose answers are put back while the campaign is paused.
    static let codes = projectWide + [foreignTokens]

    /// Whether a recorded answer is one this pause looks at.
    static func concerns(_ code: String?) -> Bool { code.map(codes.contains) ?? false }

    /// Pauses the campaigns of these runs whose answers call for it, and puts their refused
    /// requests back while they are paused.
    func apply(runs runIDs: Set<RunID>, on connection: PostgresConnection) throws {
        guard !runIDs.isEmpty else { return }
        let stopping = try connection.query("""
            SELECT r.id, r.campaign_id, w.code, w.message, w.project_wide, w.foreign_tokens, t.total
            FROM runs r CROSS JOIN LATERAL (
                SELECT count(*) FILTER (WHERE f.code = ANY(\(Self.projectWide))) AS project_wide,
                       count(*) FILTER (WHERE f.code = \(Self.foreignTokens)) AS foreign_tokens,
                       (array_agg(f.code ORDER BY f.code = ANY(\(Self.projectWide)) DESC))[1] AS code,
                       (array_agg(f.message ORDER BY f.code = ANY(\(Self.projectWide)) DESC))[1] AS message
                FROM (SELECT error_code AS code, error_message AS message FROM delivery_failures
                      WHERE run_id = r.id AND error_code = ANY(\(Self.codes))
                      UNION ALL
                      SELECT error_code, error_message FROM deliveries
                      WHERE run_id = r.id AND status = \(constants: [DeliveryStatus.failed]) AND error_code = ANY(\(Self.codes))) AS f) w
            CROSS JOIN LATERAL (
                SELECT (SELECT coalesce(sum(c.n), 0) FROM run_counts c WHERE c.run_id = r.id AND c.outcome = ANY(\(DeliveryStatus.answered)))
                       + (SELECT count(*) FROM deliveries d WHERE d.run_id = r.id AND d.status IN (\(constants: DeliveryStatus.answered))) AS total) t
            WHERE r.id = ANY(\(Array(runIDs))::uuid[]) AND r.status = \(constants: [RunStatus.sending])
              AND (w.project_wide > 0 OR (w.foreign_tokens >= 10 AND w.foreign_tokens * 2 >= t.total))
            """).map {
                try $0.decode((RunID, CampaignID, String, String?, Int, Int, Int).self,
                              columns: "id", "campaign_id", "code", "message", "project_wide", "foreign_tokens", "total")
            }
        for (runID, campaignID, code, message, projectWide, foreign, total) in stopping {
            let paused = try connection.query("""
                UPDATE campaigns SET paused_from = status, status = \(constants: [CampaignStatus.paused])
                WHERE id = \(campaignID)::uuid AND status IN (\(constants: CampaignStatus.pausable)) RETURNING id
                """)
            if !paused.isEmpty {
                let reason = Self.reason(code: code, message: message ?? "", refused: projectWide + foreign, of: total)
                _ = try connection.execute("""
                    UPDATE runs SET warnings = warnings || jsonb_build_array(\(reason)::text) WHERE id = \(runID)::uuid
                    """)
                try AuditLog().record(.campaignPaused, by: Actor(name: "herald:scheduler"), object: .campaign(campaignID),
                                      details: ["reason": .string(code == FCMErrorCode.unexpectedAnswer.rawValue ? "unexpected_answer" : "wrong_credentials"),
                                                "error_code": .string(code), "answers": .number(Double(total)),
                                                "credential_errors": .number(Double(projectWide + foreign))], on: connection)
            }
            // Paused now, or already (another worker's answers paused it first): the requests
            // refused so wait for the resume. Not paused (it cannot be): they stay failed.
            let held = try connection.query("""
                SELECT 1 FROM campaigns WHERE id = \(campaignID)::uuid AND status = \(constants: [CampaignStatus.paused])
                """)
            if !held.isEmpty { try putBack(runID, on: connection) }
        }
    }

    /// Makes the run's requests refused for its configuration sendable again: its own rows wait
    /// once more, and a streamed run's failed devices become batches to try again (their counts
    /// move from failed back to waiting).
    private func putBack(_ runID: RunID, on connection: PostgresConnection) throws {
        _ = try connection.execute("""
            UPDATE deliveries SET status = \(constants: [DeliveryStatus.retrying]), next_attempt_at = now(), updated_at = now()
            WHERE run_id = \(runID)::uuid AND status = \(constants: [DeliveryStatus.failed]) AND error_code = ANY(\(Self.codes))
            """)
        let variants = try RunWriter().insertRefusedAgain(runID: runID, codes: Self.codes, on: connection)
        var counts = RunCounts()
        for variant in variants {
            counts.add(runID, variant, DeliveryStatus.failed.rawValue, -1)
            counts.add(runID, variant, DeliveryStatus.retrying.rawValue)
        }
        try counts.write(on: connection)
    }

    /// What the run's page says of the pause: what FCM answered, what it means, what to fix.
    static func reason(code: String, message: String, refused: Int, of total: Int) -> String {
        let kept = "The campaign is paused and no device was marked invalid; every device not yet accepted is sent when it is resumed."
        switch FCMErrorCode(rawValue: code) {
        case .unexpectedAnswer:
            return "FCM's send endpoint did not answer as FCM does: \(message) \(kept) Fix HERALD_FCM_BASE_URL (or the proxy in between), then resume it."
        case .permissionDenied:
            return "FCM refused the service account (PERMISSION_DENIED: \(message)): it lacks the Firebase Cloud Messaging role, or is another "
                + "project's. \(kept) Fix HERALD_SERVICE_ACCOUNT_KEY (or the account's roles), then resume it."
        case .thirdPartyAuthError:
            return "FCM could not use the project's APNs or web-push credentials (THIRD_PARTY_AUTH_ERROR: \(message)). \(kept) "
                + "Fix the credentials in the Firebase console, then resume it."
        case .unauthenticated:
            return "FCM refused a freshly fetched access token (UNAUTHENTICATED: \(message)). \(kept) Fix HERALD_SERVICE_ACCOUNT_KEY, then resume it."
        default:
            return "FCM answered \(refused) of the first \(total) devices that the credentials are wrong for them (SENDER_ID_MISMATCH: "
                + "their tokens belong to another Firebase project than the service-account key's). \(kept) Fix HERALD_SERVICE_ACCOUNT_KEY, then resume it."
        }
    }
}
