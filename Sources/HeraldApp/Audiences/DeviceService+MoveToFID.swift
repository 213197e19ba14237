import FCMMessage
import HeraldCore
import HeraldJSON
import HeraldPostgres

/// Moving a device from its registration token to its Firebase installation ID. An Android app
/// that opts in to FIDs stops having a token and is given its FID at its next launch; its
/// backend then tells Herald, in one call, that the device it registered by token is now
/// addressed by this FID. The device stays the same device: its attributes and properties, its
/// segments, its registration time, its A/B bucket and its history. Only the identifier FCM
/// addresses changes, and the target its messages name (`fid` instead of `token`).
extension DeviceService {
    /// What a move did.
    public struct MoveToFID: Sendable {
        public var device: StoredDevice
        /// False when the device had already moved to this FID (a retried call): nothing changed.
        public var moved: Bool
    }

    /// Reads `{"fid": "..."}`, the installation ID that replaces the token.
    static func parseMoveToFID(_ json: JSON) -> Result<String, ValidationErrors> {
        var reader = JSONReader()
        guard let object = reader.object(json, at: "") else { return .failure(ValidationErrors(errors: reader.issues)) }
        reader.rejectUnknown(object, known: ["fid"], at: "")
        let fid = reader.string(object, "fid", at: "", required: true)
        if let fid, let problem = Device.identifierProblem(fid, kind: .fid, at: "fid") { reader.append([problem]) }
        guard let fid, reader.issues.isEmpty else { return .failure(ValidationErrors(errors: reader.issues)) }
        return .success(fid)
    }

    /// Moves the device registered by `token` to the FID in `document`, in one transaction with
    /// its audit row. Its status becomes active, as any registration makes it: the app that
    /// calls is alive, and an FID is a fresh identifier even when FCM had refused the old token.
    ///
    /// - 404 when no device has `token` (and none moved from it to this FID);
    /// - 409 `already_fid` when the device is registered by an FID already;
    /// - 409 `fid_registered` when another device has this FID: two rows, two histories, and
    ///   which one's attributes should win is the caller's to say (forget one, then move).
    /// A call repeated after its answer was lost finds the device moved and answers it unchanged.
    public func moveToFID(token: String, document: JSON, by actor: Actor) throws -> MoveToFID {
        let fid = try Self.checked(Self.parseMoveToFID(document))
        guard !token.contains("\0") else { throw AppError.notFound(.device) }
        return try database.transaction { connection in
            guard let current = try store.get(token, on: connection, locking: true) else {
                if let done = try store.get(fid, on: connection), done.device.kind == .fid, done.device.bucketKey == token {
                    return MoveToFID(device: done, moved: false)
                }
                throw AppError.notFound(.device)
            }
            guard current.device.kind == .token else {
                throw AppError.conflict(code: "already_fid", title: "The device is registered by an installation ID",
                                        detail: "The device \(token) is addressed by its FID already; only a device registered by token moves to an FID.")
            }
            if fid != token, try store.get(fid, on: connection) != nil {
                throw AppError.conflict(code: "fid_registered", title: "The installation ID is registered already",
                                        detail: "Another device is registered by the FID \(fid). Forget one of the two (DELETE /api/v1/devices/{token}) and move again.")
            }
            let history = try store.move(token, toFID: fid, on: connection)
            guard let moved = try store.get(fid, on: connection) else { throw AppError.notFound(.device) }
            // The audit row names the FID only: forgetting the device (an erasure) then leaves no
            // trace of its old token in a log that is never rewritten.
            try AuditLog().record(.deviceMovedToFID, by: actor, object: .device(fid), details: [
                "platform": .string(moved.device.platform.rawValue), "deliveries": .number(Double(history.deliveries)),
                "failures": .number(Double(history.failures)), "events": .number(Double(history.events)),
            ], on: connection)
            return MoveToFID(device: moved, moved: true)
        }
    }
}

extension DeviceStore {
    /// The rows of a device's history a move re-addressed.
    struct MovedHistory {
        var deliveries = 0, failures = 0, events = 0
    }

    /// Re-addresses the device `token` to `fid` and its history with it. Its bucket is hashed from
    /// its first token from now on (`bucket_key`), so no campaign gives it another variant.
    /// Requests not yet sent are re-aimed: their bodies name the FID by `fid` (the target is the
    /// first member of every rendered message). Sent ones keep the target they were sent to.
    func move(_ token: String, toFID fid: String, on connection: PostgresConnection) throws -> MovedHistory {
        _ = try connection.execute("""
            UPDATE devices SET token = \(fid), kind = 'fid', bucket_key = coalesce(bucket_key, token), status = \(constants: [DeviceStatus.active]), invalid_reason = NULL,
                last_seen_at = greatest(last_seen_at, now()), updated_at = now()
            WHERE token = \(token)
            """)
        var history = MovedHistory()
        (history.deliveries, history.failures) = try CampaignRuns().reaim(DeviceToken(token), to: DeviceToken(fid), on: connection)
        history.events = try connection.execute("UPDATE events SET device_token = \(fid) WHERE device_token = \(token)")
        // Its frequency caps' count goes with it (an FID registered anew has none yet).
        try DeviceTouchStore().move(token, to: fid, on: connection)
        return history
    }
}
