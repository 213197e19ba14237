import HeraldCore
import HeraldPostgres

/// A device that moves to its FID while streamed runs read their audiences in token order: every
/// device is sent exactly once, whichever side of a run's position its token and its FID sort.
extension StreamedRunStore {
    /// In the move's transaction, after the device row took its FID. Each streamed run still
    /// reading its audience is locked (as its claims lock it), so its position does not move
    /// meanwhile:
    /// - its token read already and its FID ahead of the position: the run skips the FID;
    /// - its token not read yet and its FID behind the position: the run gets a batch of the FID
    ///   (when the device is in its audience and gets a request), counted as planned.
    /// Batches waiting to be tried again name the FID instead of the token.
    func followMove(from token: DeviceToken, to fid: DeviceToken, on connection: PostgresConnection) throws {
        _ = try connection.execute("""
            UPDATE device_batches SET tokens = array_replace(tokens, \(token), \(fid))
            WHERE status = \(constants: [DeliveryStatus.pending]) AND \(token) = ANY(tokens)
            """)
        let runs = try connection.query("""
            SELECT id, campaign_id, content::text, audience::text, rollout_variant, control_basis_points, control_salt,
                   coalesce(\(token) <= plan_after, false) AS token_read, coalesce(\(fid) <= plan_after, false) AS fid_read
            FROM runs WHERE kind = \(constants: [RunKind.devicesStreamed]) AND planning AND status = \(constants: [RunStatus.sending])
            ORDER BY id FOR UPDATE
            """)
        var counts = RunCounts()
        for row in runs {
            let (runID, campaignID, content, audience, rollout, basisPoints, salt, tokenRead, fidRead) =
                try row.decode((RunID, CampaignID, String, String, String?, Int, String?, Bool, Bool).self,
                               columns: "id", "campaign_id", "content", "audience", "rollout_variant", "control_basis_points", "control_salt",
                               "token_read", "fid_read")
            if tokenRead && !fidRead {
                _ = try connection.execute("INSERT INTO run_skips (run_id, token) VALUES (\(runID)::uuid, \(fid)) ON CONFLICT DO NOTHING")
            } else if !tokenRead && fidRead {
                guard let messages = RunMessages(campaignID: campaignID, content: content, audience: audience, rollout: rollout,
                                                 controlGroup: RunMessages.controlGroup(basisPoints: basisPoints, salt: salt)),
                      let device = try devices.active(messages.audience, only: fid.description, on: connection),
                      let request = messages.planner.request(for: device.device) else { continue }
                // The run is sending (the query above read only such runs, locked).
                _ = try RunWriter().insertDevices(runID: runID, tokens: [fid], variants: [request.variantKey], attempts: 0, after: 0, on: connection)
                // Planned, and waiting as a batch to try again is (its record moves it from waiting to its outcome).
                counts.add(runID, request.variantKey, RunCounts.planned)
                counts.add(runID, request.variantKey, DeliveryStatus.retrying.rawValue)
            }
        }
        try counts.write(on: connection)
    }

    /// `found` less the devices the run skips (moved to an FID it had read under their token);
    /// `skips`: whether the run has any, as its claim read with the run.
    func withoutSkipped(_ found: [StoredDevice], runID: RunID, skips: Bool, on connection: PostgresConnection) throws -> [StoredDevice] {
        guard skips, !found.isEmpty else { return found }
        let skipped = Set(try connection.query("""
            SELECT token FROM run_skips WHERE run_id = \(runID)::uuid AND token = ANY(\(found.map { DeviceToken($0.device.token) }))
            """).map { try $0.decode(DeviceToken.self, column: "token") })
        return skipped.isEmpty ? found : found.filter { !skipped.contains(DeviceToken($0.device.token)) }
    }
}
