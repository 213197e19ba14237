import FCMMessage
import HeraldCore
import HeraldFCM
import HeraldJSON

extension DeviceService {
    /// What a topic subscription change did.
    public struct TopicChange: Sendable, Equatable {
        public var devices = 0
        public var changed = 0
        public var failed = 0
        /// Instance ID API calls made (1,000 tokens a call), retries included.
        public var calls = 0
        /// Devices registered by an installation ID, left out: Google documents the Instance ID
        /// API for registration tokens only (`registration_tokens`), and says nothing yet of FIDs
        /// there. Such devices need a client-side subscription (`subscribeToTopic` in the app).
        public var skippedFIDs = 0
        /// The first `maximumFailures` tokens the API refused, with its reason.
        public var failures: [(token: String, reason: String)] = []
        static let maximumFailures = 1000

        public static let fidSkipReason = "devices registered by a Firebase installation ID were left out: the Instance ID API is documented for registration tokens only; subscribe them from the app"

        public static func == (lhs: TopicChange, rhs: TopicChange) -> Bool {
            (lhs.devices, lhs.changed, lhs.failed, lhs.calls, lhs.skippedFIDs) == (rhs.devices, rhs.changed, rhs.failed, rhs.calls, rhs.skippedFIDs)
                && lhs.failures.elementsEqual(rhs.failures) { $0.token == $1.token && $0.reason == $1.reason }
        }
    }

    /// Reads `{"topic", "segment" | "tokens", "unsubscribe"?}`.
    static func parseTopicChange(_ json: JSON) -> Result<(topic: String, audience: Audience, unsubscribe: Bool), ValidationErrors> {
        var reader = JSONReader()
        guard let object = reader.object(json, at: "") else { return .failure(ValidationErrors(errors: reader.issues)) }
        reader.rejectUnknown(object, known: ["topic", "segment", "tokens", "unsubscribe"], at: "")
        let topic = TopicName.stripPrefix(reader.string(object, "topic", at: "", required: true) ?? "")
        if reader.member(object, "topic") != nil, !TopicName.isValid(topic) {
            reader.report("topic", "invalid_topic", "a topic name has letters, digits and - _ . ~ % only, found \"\(topic)\"")
        }
        let unsubscribe = reader.bool(object, "unsubscribe", at: "") ?? false
        // The audience follows the campaign contract's rules for a segment or tokens.
        var audienceOnly = JSONObject()
        for key in ["segment", "tokens"] { if let value = object[key] { audienceOnly[key] = value } }
        var parser = CampaignParser()
        let audience = parser.parseDeviceAudience(audienceOnly)
        reader.append(parser.reader.issues)
        guard let audience, reader.issues.isEmpty else { return .failure(ValidationErrors(errors: reader.issues)) }
        return .success((topic, audience, unsubscribe))
    }

    /// The Instance ID API's per-token answers that say the token is dead, and what that means.
    static let deadTokenReasons = ["NOT_FOUND": "the Instance ID API does not know this token",
                                   "INVALID_ARGUMENT": "the Instance ID API says this is not a valid registration token"]

    /// Subscribes (or unsubscribes) the active devices of a segment or a token list to a topic
    /// through the Instance ID API, a thousand a call. Tokens the API no longer knows are marked
    /// invalid, as a send's UNREGISTERED would. Audited.
    public func changeTopic(_ json: JSON, by actor: Actor) throws -> TopicChange {
        let (topic, audience, unsubscribe) = try Self.checked(Self.parseTopicChange(json))
        guard let sender else { throw AppError.sendingNotConfigured }
        var change = TopicChange()
        try database.transaction { connection in
            guard let devices = try RunStarter.devices(of: audience, on: connection) else {
                throw AppError.invalidField("segment", "the segment does not exist", code: "not_found", title: "The segment does not exist")
            }
            try store.forEachActive(matching: devices, batch: 10 * FCMSender.topicManagementBatch, on: connection) { batch in
                let tokens = batch.filter { $0.device.kind == .token }.map(\.device.token)
                change.skippedFIDs += batch.count - tokens.count
                guard !tokens.isEmpty else { return }
                let result = unsubscribe ? try sender.unsubscribe(tokens, from: topic) : try sender.subscribe(tokens, to: topic)
                change.devices += tokens.count
                change.changed += result.succeeded
                change.failed += result.failures.count
                change.calls += result.calls
                change.failures += result.failures.prefix(TopicChange.maximumFailures - change.failures.count)
                // A token the API does not know, or says is no token, is sent nothing again until registered anew.
                let dead = result.failures.filter { Self.deadTokenReasons[$0.reason] != nil }
                try store.markInvalid(dead.map(\.token), reasons: dead.map { "\($0.reason): " + Self.deadTokenReasons[$0.reason]! }, on: connection)
            }
            try AuditLog().record(.topicSubscribed, by: actor, object: .topic(topic),
                                  details: ["unsubscribe": .bool(unsubscribe), "devices": .number(Double(change.devices)),
                                            "skipped_fids": .number(Double(change.skippedFIDs)),
                                            "changed": .number(Double(change.changed)), "failed": .number(Double(change.failed))],
                                  on: connection)
        }
        return change
    }
}
