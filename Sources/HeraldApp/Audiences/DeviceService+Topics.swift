import FCMMessage
import HeraldCore
import HeraldFCM
import HeraldJSON
import HeraldPostgres

extension DeviceService {
    /// What a topic subscription change did.
    public struct TopicChange: Sendable, Equatable {
        public var devices = 0
        public var changed = 0
        /// A time-zone job's devices taken out of their former zone's topic (`changed`: put into their zone's).
        public var unsubscribed = 0
        /// A time-zone job's zones whose topics gained devices.
        public var zones: Set<String> = []
        public var failed = 0
        /// Calls to FCM made, retries included: one a device through v1's `topicSubscriptions`,
        /// one per 1,000 tokens through the Instance ID API.
        public var calls = 0
        /// Calls FCM answered 429 (over 3,000 adds or removes a second for the project).
        public var throttled = 0
        /// Devices registered by an installation ID, left out with the Instance ID API only: it is
        /// documented for registration tokens only (`registration_tokens`). v1's
        /// `topicSubscriptions` takes an FID as the registration, so none are skipped with it.
        public var skippedFIDs = 0
        /// The first `maximumFailures` tokens the API refused, with its reason.
        public var failures: [(token: String, reason: String)] = []
        static let maximumFailures = 1000

        public static let fidSkipReason = "devices registered by a Firebase installation ID were left out: the Instance ID API (HERALD_FCM_TOPIC_API=instance-id) is documented for registration tokens only; choose v1 or subscribe them from the app"

        public static func == (lhs: TopicChange, rhs: TopicChange) -> Bool {
            (lhs.devices, lhs.changed, lhs.unsubscribed, lhs.failed) == (rhs.devices, rhs.changed, rhs.unsubscribed, rhs.failed)
                && (lhs.calls, lhs.throttled, lhs.skippedFIDs, lhs.zones) == (rhs.calls, rhs.throttled, rhs.skippedFIDs, rhs.zones)
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

    /// The per-device answers that say the device is gone, and what that means: the Instance ID
    /// API's NOT_FOUND and INVALID_ARGUMENT for a token, v1's UNREGISTERED (404) and
    /// INVALID_ARGUMENT (400) with FCM's own error body (fcm.md: only FCM's own error tells a
    /// device is gone; the sender names any other answer UNEXPECTED_ANSWER, which prunes nothing).
    static func deadReason(_ reason: String, api: TopicAPI) -> String? {
        switch (api, reason) {
        case (.instanceID, "NOT_FOUND"): "the Instance ID API does not know this token"
        case (.instanceID, "INVALID_ARGUMENT"): "the Instance ID API says this is not a valid registration token"
        case (.v1, "UNREGISTERED"): "FCM does not know this registration (topicSubscriptions)"
        case (.v1, "INVALID_ARGUMENT"): "FCM says this is not a valid registration (topicSubscriptions)"
        default: nil
        }
    }

    /// How long a failing device is tried again while its caller waits in an HTTP request: at
    /// most six tries over about 25 seconds (the sender's own policy may wait minutes), so that
    /// one device FCM keeps answering 503 cannot hold the request past a proxy's 60-second
    /// timeout (Herald's nginx configuration has one). What still fails is reported per device.
    static let withinARequest = RetryPolicy(maxAttempts: 6, baseDelay: .seconds(1), maxDelay: .seconds(8), longestWait: .seconds(10))

    /// The shared budget of subscription requests of `sender`'s project.
    func subscriptionPermits(_ sender: FCMSender) -> SubscriptionQuota {
        SubscriptionQuota(database: database, project: sender.configuration.projectID)
    }

    /// Marks the devices `result` says are gone invalid, as a send's UNREGISTERED would.
    func markGone(_ result: TopicManagementResult, api: TopicAPI, on connection: PostgresConnection) throws {
        let dead = result.failures.compactMap { failure in Self.deadReason(failure.reason, api: api).map { (failure.token, "\(failure.reason): " + $0) } }
        try store.markInvalid(dead.map(\.0), reasons: dead.map(\.1), on: connection)
    }

    /// What a topic change request started: a token list changed at once, or a segment's job queued.
    public enum TopicChangeStarted: Sendable {
        case changed(TopicChange)
        case queued(TopicJob)
    }

    /// Subscribes (or unsubscribes) devices to a topic through the configured topic API: v1's
    /// `topicSubscriptions`, tokens and FIDs, at the project's shared rate; or the Instance ID
    /// API, tokens only, a thousand a call. A token list (at most 200) is changed at once, while
    /// the caller waits; a segment, of any size, becomes a job that the instances' background
    /// service works through (`runTopicJobs`). Audited.
    public func changeTopic(_ json: JSON, by actor: Actor) throws -> TopicChangeStarted {
        let (topic, audience, unsubscribe) = try Self.checked(Self.parseTopicChange(json))
        guard let sender else { throw AppError.sendingNotConfigured }
        switch audience {
        case .segment(let segment):
            return .queued(try queueTopicJob(topic: topic, segment: segment, unsubscribe: unsubscribe, by: actor))
        default:
            return .changed(try changeTopicNow(topic: topic, audience: audience, unsubscribe: unsubscribe, sender: sender, by: actor))
        }
    }

    /// Changes a token list's subscriptions while the caller waits. Devices FCM says are gone
    /// are marked invalid, as a send's UNREGISTERED would.
    func changeTopicNow(topic: String, audience: Audience, unsubscribe: Bool, sender: FCMSender, by actor: Actor) throws -> TopicChange {
        var change = TopicChange()
        try database.transaction { connection in
            guard let devices = try RunStarter.devices(of: audience, on: connection) else { return }
            try store.forEachActive(matching: devices, batch: 10 * FCMSender.topicManagementBatch, on: connection) { batch in
                let result = try changeTopic(of: batch, topic: topic, unsubscribe: unsubscribe, sender: sender,
                                             policy: Self.withinARequest, into: &change)
                try markGone(result, api: sender.configuration.topicAPI, on: connection)
            }
            try AuditLog().record(.topicSubscribed, by: actor, object: .topic(topic),
                                  details: ["unsubscribe": .bool(unsubscribe), "devices": .number(Double(change.devices)),
                                            "skipped_fids": .number(Double(change.skippedFIDs)),
                                            "changed": .number(Double(change.changed)), "failed": .number(Double(change.failed))],
                                  on: connection)
        }
        return change
    }

    /// Subscribes (or unsubscribes) one batch of active devices, FID devices left out with the
    /// Instance ID API, and counts what it did into `change`; the caller marks the gone ones.
    func changeTopic(of batch: [StoredDevice], topic: String, unsubscribe: Bool, sender: FCMSender, policy: RetryPolicy?,
                     into change: inout TopicChange) throws -> TopicManagementResult {
        let api = sender.configuration.topicAPI
        let registrations = batch.filter { api.takesInstallationIDs || $0.device.kind == .token }.map(\.device.token)
        change.skippedFIDs += batch.count - registrations.count
        guard !registrations.isEmpty else { return TopicManagementResult() }
        let permits = subscriptionPermits(sender)
        let result = unsubscribe ? try sender.unsubscribe(registrations, from: topic, permits: permits, policy: policy)
            : try sender.subscribe(registrations, to: topic, permits: permits, policy: policy)
        change.devices += registrations.count
        change.changed += result.succeeded
        change.failed += result.failures.count
        change.calls += result.calls
        change.throttled += result.throttled
        change.failures += result.failures.prefix(max(0, TopicChange.maximumFailures - change.failures.count))
        return result
    }
}
