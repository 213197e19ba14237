import FCMMessage
import Foundation
import HeraldCore
import HeraldCrypto
import HeraldFCM
import HeraldJSON
import HeraldPostgres

/// Every use case of the campaign aggregate, written once for the REST API, the pages and the
/// command line. Each write is one transaction with its audit entry: both commit or neither.
/// Failures are `AppError`s; the clock is handed in (`now`), never read here.
public struct CampaignService: Sendable {
    let database: Database
    let sender: FCMSender?
    let buckets: AudienceBuckets
    /// Whether only an approved version may be scheduled or sent (`HERALD_APPROVALS`).
    let approvalsRequired: Bool
    let campaigns = CampaignStore()
    let lifecycle = LifecycleStore()
    let idempotency = IdempotencyStore()
    let progress = ProgressStore()
    let events = EventStore()
    let audit = AuditLog()

    public static let defaultPageSize = 20
    public static let maximumPageSize = 100

    public init(database: Database, sender: FCMSender?, buckets: AudienceBuckets, approvalsRequired: Bool = false) {
        self.database = database
        self.sender = sender
        self.buckets = buckets
        self.approvalsRequired = approvalsRequired
    }

    // MARK: - Reading

    public func get(_ id: CampaignID) throws -> CampaignRecord {
        guard let record = try database.read({ try campaigns.find(id: id, on: $0) }) else { throw AppError.notFound(.campaign("\(id)")) }
        return record
    }

    /// Newest first, `limit` at a time after `cursor`, of `filter`. A cursor continues the listing
    /// it came from: an empty `filter` takes the cursor's, and a different one is refused rather
    /// than mixing two listings' pages.
    public func list(_ filter: CampaignFilter, limit: Int = defaultPageSize, after cursor: CampaignCursor?) throws -> CampaignPage {
        if let error = CampaignFilter.searchError(filter.nameContains) {
            throw AppError.invalid(ValidationErrors(errors: [error]), title: "The search is not valid")
        }
        var filter = filter
        if let cursor {
            if filter.isEmpty { filter = cursor.filter }
            guard filter == cursor.filter else {
                throw AppError.invalidField("cursor", "this cursor continues a listing with other filters; repeat that listing's status and q, or start again without a cursor",
                                            code: "invalid_cursor", title: "The query is not valid")
            }
        }
        return try database.read { try campaigns.list(filter, limit: limit, after: cursor, on: $0) }
    }

    /// What the list shows of each campaign's sending: last run and requests sent and failed.
    public func summaries(_ ids: [CampaignID]) throws -> [CampaignID: CampaignSummary] {
        try database.read { try progress.summaries(campaignIDs: ids, on: $0) }
    }

    /// The v1 requests the campaign would send at `now`.
    public func preview(_ id: CampaignID, now: Date) throws -> (CampaignRecord, FanOutPlan) {
        let record = try get(id)
        return (record, try plan(record, now: now))
    }

    /// The v1 requests a campaign already read would send at `now` (no second read).
    public func plan(_ record: CampaignRecord, now: Date) throws -> FanOutPlan {
        FanOutPlanner.plan(campaign: try record.spec().forSending, buckets: buckets, campaignID: record.id.description, sendTime: now)
    }

    /// One request of a dry run and FCM's opinion of it.
    public struct Validated: Sendable {
        public var variantKey: String
        public var target: Message.Target
        public var outcome: SendOutcome
    }

    /// Devices of a campaign's audience a dry run checks its messages against.
    static let validationSample = 10

    /// FCM's opinion of every planned request (a dry run: `validate_only`). A campaign to devices
    /// is checked as it would be sent: personalised for the first devices of its audience, with
    /// their real tokens (FCM refuses a made-up one, so a placeholder would check nothing).
    public func validate(_ id: CampaignID, now: Date) throws -> (CampaignRecord, [Validated]) {
        let sender = try configuredSender()
        let record = try get(id)
        let spec = try record.spec()
        var requests: [(variantKey: String, target: Message.Target, body: [UInt8])] = []
        if spec.audience.isPerDevice {
            let planner = DevicePlanner(campaign: spec.forSending, campaignID: id.description, sendTime: now)
            for device in try sampleDevices(of: spec, limit: Self.validationSample * 4) {
                guard let request = planner.request(for: device.device), let body = request.body, requests.count < Self.validationSample else { continue }
                requests.append((request.variantKey, device.device.target, Array(body.utf8)))
            }
            guard !requests.isEmpty else {
                throw AppError.conflict(code: "no_devices", title: "Nothing to validate against",
                                        detail: "Campaign \(id)'s audience has no active device that would get a message: a dry run checks the messages with real tokens.",
                                        currentStatus: record.status)
            }
        } else {
            requests = try plan(record, now: now).requests.map { ($0.variantKey, $0.target, Array($0.message.json().serialized())) }
        }
        let outcomes = sender.send(batch: requests.map(\.body), validateOnly: true, concurrency: 8)
        return (record, zip(requests, outcomes).map { Validated(variantKey: $0.variantKey, target: $0.target, outcome: $1) })
    }

    /// How many devices of a Live Activity campaign's audience it reaches (iOS, with an activity
    /// token); nil for any other campaign.
    public func liveActivityReach(of spec: CampaignSpec) throws -> Int? {
        guard spec.liveActivity != nil else { return nil }
        return try database.read { connection -> Int in
            guard let audience = try RunStarter.devices(of: spec.audience, on: connection) else { return 0 }
            return try DeviceStore().countWithLiveActivity(audience, on: connection)
        }
    }

    /// The first `limit` active devices of a campaign's audience (none for topics and
    /// conditions): what a dry run checks and what the review previews a personalised text for.
    public func sampleDevices(of spec: CampaignSpec, limit: Int) throws -> [StoredDevice] {
        guard spec.audience.isPerDevice else { return [] }
        return try database.read { connection -> [StoredDevice] in
            guard let audience = try RunStarter.devices(of: spec.audience, on: connection) else { return [] }
            return try DeviceStore().active(audience, after: nil, limit: limit, on: connection)
        }
    }

    public func runs(_ id: CampaignID) throws -> [RunProgress] {
        try database.read { connection in
            guard try campaigns.find(id: id, on: connection) != nil else { throw AppError.notFound(.campaign("\(id)")) }
            return try progress.runs(campaignID: id, on: connection)
        }
    }

    /// What the report shows of a campaign (the page, its CSV and the API), read in one connection:
    /// the campaign, its runs, its first failed deliveries, the apps' events and the hourly trend.
    public func report(_ id: CampaignID, failures limit: Int = 100) throws -> CampaignReport {
        try database.read { connection in
            guard let record = try campaigns.find(id: id, on: connection) else { throw AppError.notFound(.campaign("\(id)")) }
            var report = CampaignReport(
                campaign: record, variantKeys: try record.spec().effectiveVariants.map(\.key),
                runs: try progress.runs(campaignID: id, on: connection),
                totals: try progress.variantTotals(campaignID: id, on: connection),
                failures: try progress.deliveries(campaignID: id, status: .failed, afterID: 0, limit: limit, on: connection),
                events: try events.counts(campaignID: id.description, on: connection),
                hours: try progress.hours(campaignID: id, on: connection))
            if try record.spec().audience.isPerDevice {
                report.devices = try progress.deviceReach(campaignID: id, on: connection)
            }
            report.winnerDecision = try WinnerDecider.decision(of: id, on: connection)
            report.delivery = try DeliveryDataService.figures(of: try record.spec(), campaignID: id.description, on: connection)
            return report
        }
    }

    public func deliveries(_ id: CampaignID, status: DeliveryStatus?, afterID: Int64, limit: Int) throws -> [DeliveryRecord] {
        try database.read { connection in
            guard try campaigns.find(id: id, on: connection) != nil else { throw AppError.notFound(.campaign("\(id)")) }
            return try progress.deliveries(campaignID: id, status: status, afterID: afterID, limit: limit, on: connection)
        }
    }

    // MARK: - Writing

    /// The contract's JSON as a campaign, or every field it breaks.
    public static func validated(_ json: JSON) throws(AppError) -> CampaignSpec {
        // A request's body: a null is refused where stored content reads it as absent.
        var reader = JSONReader()
        reader.rejectNulls(json)
        switch CampaignSpec.parse(json) {
        case .success(let spec) where reader.issues.isEmpty: return spec
        case .success: throw .invalid(ValidationErrors(errors: reader.issues), title: "The campaign is not valid")
        case .failure(let failure): throw .invalid(ValidationErrors(errors: reader.issues + failure.errors), title: "The campaign is not valid")
        }
    }

    public func create(_ spec: CampaignSpec, by actor: Actor, now: Date) throws -> CampaignRecord {
        try Self.refuseUnsavableSchedule(spec, now: now)
        return try database.transaction { connection in try insert(spec, by: actor, on: connection) }
    }

    /// What a create with an `Idempotency-Key` answered: the new campaign, or the first answer again.
    public enum IdempotentCreate: Sendable {
        case created(CampaignRecord)
        case replayed(IdempotentAnswer)
    }

    /// A create that a client may retry with the same key and body: the first answer (what
    /// `answer` makes of the new campaign: the face's status and body, kept as given) is
    /// remembered with the campaign, so a retry after a lost response gets it instead of a copy.
    /// Keys are the caller's own: one caller's key never replays another caller's answer.
    public func create(_ spec: CampaignSpec, by actor: Actor, now: Date, idempotencyKey key: String, body: [UInt8],
                       answer: (CampaignRecord) -> IdempotentAnswer) throws -> IdempotentCreate {
        let scope = "campaigns.create:" + (actor.apiKeyID?.description ?? actor.userID?.description ?? actor.name)
        return try database.read { connection in
            if let remembered = try idempotency.find(scope: scope, key: key, on: connection) {
                return try replay(remembered, body: body)
            }
            // After the replay: a retry of a create that was accepted is answered as it was, even
            // when its schedule has passed since.
            try Self.refuseUnsavableSchedule(spec, now: now)
            do {
                return try connection.transaction { connection in
                    let record = try insert(spec, by: actor, on: connection)
                    try idempotency.remember(scope: scope, key: key, requestSHA256: IdempotencyStore.fingerprint(body), answer: answer(record), on: connection)
                    return .created(record)
                }
            } catch let error as PostgresError where error.code == .uniqueViolation {
                // A concurrent request with the same key committed first: answer what it answered.
                guard let remembered = try idempotency.find(scope: scope, key: key, on: connection) else { throw error }
                return try replay(remembered, body: body)
            }
        }
    }

    /// A copy of the campaign as a new draft named "Copy of …".
    public func duplicate(_ id: CampaignID, by actor: Actor) throws -> CampaignRecord {
        try database.transaction { connection in
            guard let original = try campaigns.find(id: id, on: connection) else { throw AppError.notFound(.campaign("\(id)")) }
            var spec = try original.spec()
            spec.name = String("Copy of \(spec.name)".prefix(CampaignLimits.nameCharacters))
            return try insert(spec, by: actor, on: connection, details: ["duplicate_of": .string(original.id.description)])
        }
    }

    /// Replaces the content of a draft or scheduled campaign at `expectedVersion`. Saving what is
    /// already stored changes nothing: no new version, no new time, no audit entry (a form saved
    /// without an edit must not make everyone else's copy stale).
    public func update(_ id: CampaignID, expectedVersion: Int, spec: CampaignSpec, by actor: Actor, now: Date) throws -> CampaignRecord {
        try database.transaction { connection in
            if let current = try campaigns.find(id: id, on: connection), current.version == expectedVersion,
               current.status.isEditable, current.content == spec.toJSON() {
                return current
            }
            try Self.refuseUnsavableSchedule(spec, now: now)
            try Self.refuseTransactional(spec, was: try campaigns.find(id: id, on: connection), by: actor)
            return try approvalAfterEdit(try write(.campaignUpdated, by: actor, on: connection,
                             try campaigns.update(id: id, expectedVersion: expectedVersion, spec: spec, by: actor.attribution, now: now, on: connection)),
                                         by: actor, on: connection)
        }
    }

    /// JSON Merge Patch (RFC 7396) over the campaign's content; the result is validated whole.
    public func patch(_ id: CampaignID, expectedVersion: Int, patch: JSON, by actor: Actor, now: Date) throws -> CampaignRecord {
        guard case .object = patch else {
            throw AppError.invalidField("", "A merge patch must be a JSON object.", code: "invalid_patch", title: "The patch is not valid")
        }
        return try database.transaction { connection in
            guard let current = try campaigns.find(id: id, on: connection) else { throw AppError.notFound(.campaign("\(id)")) }
            let spec = try Self.validated(current.content.mergePatched(with: patch))
            try Self.refuseUnsavableSchedule(spec, now: now)
            try Self.refuseTransactional(spec, was: current, by: actor)
            return try approvalAfterEdit(try write(.campaignUpdated, by: actor, on: connection,
                             try campaigns.update(id: current.id, expectedVersion: expectedVersion, spec: spec, by: actor.attribution,
                                                  now: now, on: connection)), by: actor, on: connection)
        }
    }

    /// Deletes a draft at `expectedVersion`.
    public func delete(_ id: CampaignID, expectedVersion: Int, by actor: Actor) throws {
        try database.transaction { connection in
            switch try campaigns.delete(id: id, expectedVersion: expectedVersion, on: connection) {
            case .deleted:
                try audit.record(.campaignDeleted, by: actor, object: .campaign(id), on: connection)
            case .notFound:
                throw AppError.notFound(.campaign("\(id)"))
            case .versionMismatch(let current, let expected):
                throw AppError.versionMismatch(currentVersion: current.version, expectedVersion: expected)
            case .notADraft(let current):
                throw AppError.conflict(code: "not_a_draft", title: "Only drafts can be deleted",
                                        detail: "Campaign \(current.id) is \(current.status.rawValue); only drafts can be deleted. Cancel it instead.",
                                        currentStatus: current.status)
            }
        }
    }

    /// Arms the campaign: its first run is due at its schedule's next occurrence (at once without one).
    public func schedule(_ id: CampaignID, expectedVersion: Int, by actor: Actor, now: Date) throws -> CampaignRecord {
        try database.transaction { connection in
            guard let current = try campaigns.find(id: id, on: connection) else { throw AppError.notFound(.campaign("\(id)")) }
            try refuseUnapproved(current)
            let due: Date
            switch Arming.firstRun(of: try current.spec(), now: now) {
            case .success(let date): due = date
            case .failure(let errors): throw AppError.invalid(errors, title: "The campaign cannot be scheduled")
            }
            return try write(.campaignScheduled, by: actor, on: connection,
                             try lifecycle.schedule(id: id, expectedVersion: expectedVersion, nextRunAt: due, on: connection))
        }
    }

    /// Starts the campaign's run at once, whatever its schedule says.
    public func publishNow(_ id: CampaignID, expectedVersion: Int, by actor: Actor, now: Date) throws -> CampaignRecord {
        try database.transaction { connection in
            if let current = try campaigns.find(id: id, on: connection) { try refuseUnapproved(current) }
            return try write(.campaignPublished, by: actor, on: connection,
                      try lifecycle.schedule(id: id, expectedVersion: expectedVersion, nextRunAt: now, on: connection))
        }
    }

    /// Stops a campaign that has not finished: no further run, no delivery not yet sent.
    public func cancel(_ id: CampaignID, expectedVersion: Int, by actor: Actor) throws -> CampaignRecord {
        try database.transaction { connection in
            let outcome = try lifecycle.cancel(id: id, expectedVersion: expectedVersion, on: connection)
            if case .notEditable(let current) = outcome {
                throw AppError.conflict(code: "not_cancellable", title: "The campaign can no longer be cancelled",
                                        detail: "Campaign \(current.id) is \(current.status.rawValue); only draft, scheduled and sending campaigns can be cancelled.",
                                        currentStatus: current.status)
            }
            return try write(.campaignCancelled, by: actor, on: connection, outcome)
        }
    }

    /// Holds a scheduled or sending campaign: no run starts and no further request is sent (a
    /// worker's round already claimed completes) until it is resumed.
    public func pause(_ id: CampaignID, expectedVersion: Int, by actor: Actor) throws -> CampaignRecord {
        try holdOrRelease(.campaignPaused, id, by: actor, refusal: ("not_pausable", "The campaign cannot be paused", "only scheduled and sending campaigns can be paused")) {
            try lifecycle.pause(id: id, expectedVersion: expectedVersion, on: $0)
        }
    }

    /// Lets a paused campaign go on from where it stopped: the requests not yet sent are sent, the
    /// ones sent before the pause are not sent again.
    public func resume(_ id: CampaignID, expectedVersion: Int, by actor: Actor) throws -> CampaignRecord {
        try holdOrRelease(.campaignResumed, id, by: actor, refusal: ("not_paused", "The campaign is not paused", "only a paused campaign can be resumed")) {
            try lifecycle.resume(id: id, expectedVersion: expectedVersion, on: $0)
        }
    }

    /// A pause or resume in one transaction with its audit entry; a campaign in the wrong state is
    /// refused with `refusal` (code, title, rule).
    func holdOrRelease(_ action: AuditAction, _ id: CampaignID, by actor: Actor, refusal: (code: String, title: String, rule: String),
                       _ change: (PostgresConnection) throws -> CampaignStore.UpdateOutcome) throws -> CampaignRecord {
        try database.transaction { connection in
            let outcome = try change(connection)
            if case .notEditable(let current) = outcome {
                throw AppError.conflict(code: refusal.code, title: refusal.title,
                                        detail: "Campaign \(current.id) is \(current.status.rawValue); \(refusal.rule).", currentStatus: current.status)
            }
            return try write(action, by: actor, on: connection, outcome)
        }
    }

    // MARK: - Helpers

    func insert(_ spec: CampaignSpec, by actor: Actor, on connection: PostgresConnection, details: JSONObject = [:]) throws -> CampaignRecord {
        try Self.refuseTransactional(spec, was: nil, by: actor)
        let record = try campaigns.insert(spec, author: actor.name, by: actor.attribution, on: connection)
        try audit.record(.campaignCreated, by: actor, object: .campaign(record.id), details: details, on: connection)
        return record
    }

    /// The one reading of a guarded write's outcome: the record (audited), or why not.
    func write(_ action: AuditAction, by actor: Actor, on connection: PostgresConnection,
               _ outcome: CampaignStore.UpdateOutcome) throws -> CampaignRecord {
        switch outcome {
        case .updated(let record):
            try audit.record(action, by: actor, object: .campaign(record.id),
                             details: ["version": .number(Double(record.version)), "status": .string(record.status.rawValue)], on: connection)
            if let event = Self.webhookEvent[action] {
                try WebhookOutbox.enqueueCampaignEvents([(event, record.id, ["actor": .string(actor.name)])], on: connection)
            }
            return record
        case .notFound:
            throw AppError.notFound(.campaign(nil))
        case .versionMismatch(let current, let expected):
            throw AppError.versionMismatch(currentVersion: current.version, expectedVersion: expected)
        case .notEditable(let current):
            throw AppError.conflict(code: "not_editable", title: "The campaign can no longer be edited",
                                    detail: "Campaign \(current.id) is \(current.status.rawValue); only draft and scheduled campaigns can be edited.",
                                    currentStatus: current.status)
        case .unschedulable(_, let errors):
            throw AppError.invalid(errors, title: "The campaign is scheduled and its new schedule has no time left to send at")
        }
    }

    /// The webhook event each audited change of a campaign's lifecycle is also told as.
    static let webhookEvent: [AuditAction: WebhookEventType] = [
        .campaignScheduled: .campaignScheduled, .campaignPublished: .campaignScheduled, .campaignCancelled: .campaignCancelled,
    ]

    /// Marking a campaign transactional lifts the frequency caps and the control group from it:
    /// an editor may keep a mark a publisher set, not set it.
    static func refuseTransactional(_ spec: CampaignSpec, was previous: CampaignRecord?, by actor: Actor,
                                    at path: String = "delivery.transactional") throws {
        guard spec.delivery.transactional, !actor.may(.publisher), !((try previous?.spec())?.delivery.transactional ?? false) else { return }
        throw AppError.invalidField(path,
                                    "only a publisher or an admin may mark a campaign transactional: it ignores the frequency caps and the control group",
                                    code: "not_permitted", title: "The campaign is not valid")
    }

    /// A schedule with no time left to send at is refused on every save (see `Arming.unsavableSchedule`).
    static func refuseUnsavableSchedule(_ spec: CampaignSpec, now: Date) throws(AppError) {
        if let errors = Arming.unsavableSchedule(of: spec, now: now) {
            throw .invalid(errors, title: "The campaign's schedule has no time left to send at")
        }
    }

    func replay(_ remembered: IdempotencyStore.Remembered, body: [UInt8]) throws(AppError) -> IdempotentCreate {
        guard remembered.isSameRequest(body) else {
            throw .refused(code: "idempotency_key_reused", title: "Idempotency-Key already used",
                           detail: "This Idempotency-Key was used for a different request body; use a new key for a new request.")
        }
        return .replayed(remembered.answer)
    }

    func configuredSender() throws(AppError) -> FCMSender {
        guard let sender else { throw .sendingNotConfigured }
        return sender
    }
}
