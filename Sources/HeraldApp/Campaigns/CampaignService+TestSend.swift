import FCMMessage
import Foundation
import HeraldCore
import HeraldJSON
import HeraldPostgres

/// A test send: one variant to a few devices the tester names, at once, outside any run.
extension CampaignService {
    /// Sends one variant (the first when `variantKey` is nil) to a few registration tokens, now,
    /// and audits it. Every token is checked before anything is sent: one bad token sends nothing.
    public func testSend(_ id: CampaignID, variantKey: String?, tokens: [String], fids: [String] = [], by actor: Actor,
                         now: Date) throws -> (CampaignRecord, Variant, [TestSend.Result]) {
        let countPath = tokens.isEmpty && !fids.isEmpty ? "fids" : "tokens"
        let errors = (TestSend.tokenCountError(tokens.count + fids.count, path: countPath).map { [$0] } ?? [])
            + TestSend.tokenErrors(tokens) + TestSend.fidErrors(fids)
        if !errors.isEmpty {
            throw AppError.invalid(ValidationErrors(errors: errors), title: "The test message request is not valid")
        }
        if approvalsRequired { try TestDeviceService(database: database).refuseUnlisted(tokens: tokens, fids: fids) }
        let sender = try configuredSender()
        let record = try get(id)
        let spec = try record.spec()
        let key = variantKey ?? spec.effectiveVariants[0].key
        guard let variant = spec.variant(key) else {
            throw AppError.invalid(ValidationErrors(errors: [FieldError(
                path: "variant", code: "unknown_variant",
                message: "campaign has no variant \"\(key)\"; it has \(spec.effectiveVariants.map(\.key).joined(separator: ", "))")]),
                title: "The test message request is not valid")
        }
        // No connection is held while FCM answers; the audit entry follows with what happened.
        let devices = tokens.map { ($0, DeviceKind.token) } + fids.map { ($0, DeviceKind.fid) }
        let activities = spec.liveActivity == nil ? [:] : try liveActivityTokens(tokens: tokens, fids: fids)
        // Its own label, counted in the day's budget (nil, and unlabelled, once the day has no room).
        let label = try database.transaction {
            try LabelDayStore().admit(TestSend.analyticsLabel(campaignID: record.id.description), campaignID: record.id.description, on: $0)
        }
        let results = TestSend.send(record.id.description, spec, variant: variant, devices: devices, label: label, sender: sender, now: now,
                                    liveActivityTokens: activities)
        let sent = results.filter { $0.outcome.error == nil }.count
        // A registered device FCM no longer knows is sent nothing again, whoever asked.
        let gone = results.filter { $0.outcome.error?.code == .unregistered }
        try database.transaction { connection in
            try DeviceStore().markInvalid(gone.map(\.token), reasons: gone.map { "UNREGISTERED: " + ($0.outcome.error?.message ?? "") }, on: connection)
            try audit.record(.campaignTestSent, by: actor, object: .campaign(record.id), details: [
                "variant": .string(variant.key), "tokens": .number(Double(tokens.count)),
                "sent": .number(Double(sent)), "failed": .number(Double(results.count - sent)),
            ], on: connection)
        }
        return (record, variant, results)
    }

    /// The activity tokens a Live Activity's test goes to, by device: each typed device must be
    /// registered with one (a Live Activity is reached by its own token, not the FCM token alone).
    func liveActivityTokens(tokens: [String], fids: [String]) throws -> [String: String] {
        let named = tokens.enumerated().map { ("tokens", $0.offset, $0.element) } + fids.enumerated().map { ("fids", $0.offset, $0.element) }
        var found: [String: String] = [:], errors: [FieldError] = []
        try database.read { connection in
            for (list, index, identifier) in named {
                if let activity = try DeviceStore().named(by: identifier, on: connection)?.device.liveActivityToken {
                    found[identifier] = activity
                } else {
                    errors.append(FieldError(path: JSONReader.path(list, index: index), code: "no_live_activity",
                        message: "the device on line \(index + 1) is not registered with a live_activity_token: a Live Activity's test reaches only a device whose activity token Herald knows"))
                }
            }
        }
        if !errors.isEmpty { throw AppError.invalid(ValidationErrors(errors: errors), title: "The test message request is not valid") }
        return found
    }
}
