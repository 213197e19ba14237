import Foundation
import HeraldCore
import HeraldCrypto
import HeraldJSON
import HeraldPostgres

/// The project's contact policy: how many marketing messages a device may get (the frequency
/// caps, per window and per category) and which devices get none (the global control group),
/// with the comparison that says whether the pushes help at all.
public struct ContactPolicyService: Sendable {
    let database: Database
    let store = ContactPolicyStore()
    let audit = AuditLog()

    public init(database: Database) { self.database = database }

    public func policy() throws -> ContactPolicy {
        try database.read { try store.read(on: $0) }
    }

    /// Replaces the frequency caps (`FrequencyCaps.parse`'s document); audited with what they were.
    public func setCaps(_ json: JSON, expectedVersion: Int?, by actor: Actor) throws -> ContactPolicy {
        let caps: FrequencyCaps
        switch FrequencyCaps.parse(json) {
        case .success(let parsed): caps = parsed
        case .failure(let errors): throw AppError.invalid(errors, title: "The frequency caps are not valid")
        }
        return try database.transaction { connection in
            var policy = try current(expectedVersion, on: connection)
            guard policy.caps != caps else { return policy }
            let before = policy.caps.toJSON()
            policy.caps = caps
            let saved = try store.write(policy, controlChanged: false, on: connection)
            try audit.record(.frequencyCapsChanged, by: actor, object: .contactPolicy(.caps),
                             details: ["before": before, "after": caps.toJSON()], on: connection)
            return saved
        }
    }

    /// Sets the control group's share (`{"percent": 5}`, 0 to 50, kept to hundredths) and, with
    /// `"reshuffle": true`, draws a new salt: other devices from then on. Audited.
    public func setControlGroup(_ json: JSON, expectedVersion: Int?, by actor: Actor) throws -> ContactPolicy {
        var reader = JSONReader()
        guard let object = reader.object(json, at: "") else { throw AppError.invalid(ValidationErrors(errors: reader.issues), title: "The control group is not valid") }
        reader.rejectUnknown(object, known: ["percent", "reshuffle"], at: "")
        var basisPoints: Int?
        switch object["percent"] {
        case .number(let percent)?:
            // Kept to hundredths of a percent: 12.345 becomes 12.35 (the answer says what was kept).
            if percent < 0 || percent > Double(ControlGroup.maximumBasisPoints) / 100 {
                reader.report("percent", "out_of_range", "the control group is 0 to \(ControlGroup.maximumBasisPoints / 100) percent of devices, found \(percent)",
                              limit: ControlGroup.maximumBasisPoints / 100)
            } else {
                basisPoints = Int((percent * 100).rounded())
            }
        case nil, .null?: reader.report("percent", "required", "percent is required: the share of devices that gets no marketing campaign (0 for none)")
        case let other?: reader.wrongType("percent", expected: "number", found: other)
        }
        let reshuffle = reader.bool(object, "reshuffle", at: "") ?? false
        guard reader.issues.isEmpty, let basisPoints else {
            throw AppError.invalid(ValidationErrors(errors: reader.issues), title: "The control group is not valid")
        }
        return try database.transaction { connection in
            var policy = try current(expectedVersion, on: connection)
            guard policy.controlGroup.basisPoints != basisPoints || reshuffle else { return policy }
            let before = policy.controlGroup.basisPoints
            policy.controlGroup.basisPoints = basisPoints
            if reshuffle { policy.controlGroup.salt = SecureRandom.token() }
            let saved = try store.write(policy, controlChanged: true, on: connection)
            try audit.record(.controlGroupChanged, by: actor, object: .contactPolicy(.controlGroup),
                             details: ["percent_before": .number(Double(before) / 100), "percent": .number(Double(basisPoints) / 100),
                                       "reshuffled": .bool(reshuffle)], on: connection)
            return saved
        }
    }

    /// Whether the contact policy (caps or a control group) would limit this marketing campaign
    /// but cannot, because it goes to topics or a condition: FCM does not say which devices a topic
    /// reaches, so no device can be counted or held back. The one stated exemption of topics.
    public func leavesTopicsUncapped(_ spec: CampaignSpec) throws -> Bool {
        guard !spec.audience.isPerDevice, !spec.delivery.transactional else { return false }
        let policy = try database.read { try store.read(on: $0) }
        return !policy.caps.isEmpty || policy.controlGroup.basisPoints > 0
    }

    /// What a campaign to `audience` devices may reach under the policy now: the control group
    /// left out (marketing), and the devices at a cap for its category, by the claim's own rules
    /// on up to 5,000 of the campaign's own devices (`SendRules.forecast`), scaled to the
    /// audience. `campaignID` places the devices in their A/B buckets (a holdout gets nothing to
    /// cap). Nil when the policy changes nothing for it (transactional, or no caps and no group).
    public func reachForecast(_ spec: CampaignSpec, campaignID: CampaignID? = nil, audience: Int) throws -> ReachForecast? {
        guard spec.audience.isPerDevice, !spec.delivery.transactional else { return nil }
        return try database.read { connection in
            let policy = try store.read(on: connection)
            guard !policy.caps.isEmpty || policy.controlGroup.basisPoints > 0,
                  let devices = try RunStarter.devices(of: spec.audience, on: connection) else { return nil }
            let sample = try SendRules.forecast(spec, campaignID: campaignID, audience: devices, controlGroup: policy.controlGroup.forRun(of: spec),
                                                caps: policy.caps, limit: 5_000, on: connection)
            let scale = sample.read == 0 ? 0 : Double(audience) / Double(sample.read)
            return ReachForecast(audience: audience, controlGroup: Int((Double(sample.controlGroup) * scale).rounded()),
                                 capped: Int((Double(sample.capped) * scale).rounded()))
        }
    }

    private func current(_ expectedVersion: Int?, on connection: PostgresConnection) throws -> ContactPolicy {
        let policy = try store.read(on: connection, locking: true)
        if let expectedVersion, expectedVersion != policy.version {
            throw AppError.versionMismatch(currentVersion: policy.version, expectedVersion: expectedVersion)
        }
        return policy
    }

    /// The control group against everyone else over `from`..<`to`: per active device, the share
    /// that had an open and the share that had a conversion (any event naming the device, the
    /// app's own or a campaign's), compared as A/B compares variants.
    public func controlGroupReport(from: Date, to: Date) throws -> ControlGroupReport {
        try database.read { connection in
            let policy = try store.read(on: connection)
            var report = ControlGroupReport(from: from, to: to, basisPoints: policy.controlGroup.basisPoints, since: policy.controlSince)
            // Every active device, by the key its membership hashes (a moved device's old token).
            var after = ""
            while true {
                let page = try connection.query("""
                    SELECT token, coalesce(bucket_key, token) AS bucket_key FROM devices WHERE status = \(constants: [DeviceStatus.active]) AND token > \(after) ORDER BY token LIMIT 10000
                    """).map { try $0.decode((String, String).self, columns: "token", "bucket_key") }
                for (_, key) in page {
                    if policy.controlGroup.contains(key) { report.control.devices += 1 } else { report.rest.devices += 1 }
                }
                guard page.count == 10_000, let last = page.last else { break }
                after = last.0
            }
            for row in try connection.query("""
                SELECT coalesce(d.bucket_key, e.device_token) AS bucket_key, bool_or(e.type = \(constants: [EventType.open])) AS opened,
                       bool_or(e.type = \(constants: [EventType.conversion])) AS converted
                FROM events e JOIN devices d ON d.token = e.device_token AND d.status = \(constants: [DeviceStatus.active])
                WHERE e.device_token IS NOT NULL AND e.occurred_at >= to_timestamp(\(from.timeIntervalSince1970))
                  AND e.occurred_at < to_timestamp(\(to.timeIntervalSince1970))
                GROUP BY 1
                """) {
                let (key, opened, converted) = try row.decode((String, Bool, Bool).self, columns: "bucket_key", "opened", "converted")
                let inControl = policy.controlGroup.contains(key)
                if opened { if inControl { report.control.opened += 1 } else { report.rest.opened += 1 } }
                if converted { if inControl { report.control.converted += 1 } else { report.rest.converted += 1 } }
            }
            return report
        }
    }
}

/// A campaign's audience under the contact policy, before it is sent.
public struct ReachForecast: Sendable, Equatable {
    public var audience: Int
    /// Its devices in the control group.
    public var controlGroup: Int
    /// About how many of the rest are at a frequency cap for it now.
    public var capped: Int
    public var expected: Int { max(0, audience - controlGroup - capped) }
}

/// The global control group against everyone else over a period.
public struct ControlGroupReport: Sendable, Equatable {
    public struct Side: Sendable, Equatable {
        /// Active devices.
        public var devices = 0
        /// Devices with at least one open, and with at least one conversion, in the period.
        public var opened = 0
        public var converted = 0
    }

    public var from: Date
    public var to: Date
    public var basisPoints: Int
    /// When the group last changed: a period before it compares other devices.
    public var since: Date
    public var control = Side()
    public var rest = Side()

    /// Everyone else against the control group (the baseline), for opens or conversions per device.
    public func comparison(_ metric: Metric) -> ControlGroupComparison? {
        let pick: (Side) -> Int = metric == .opens ? { $0.opened } : { $0.converted }
        let baseline = ABStatistics.Group(key: "control", successes: pick(control), trials: control.devices)
        let others = ABStatistics.Group(key: "everyone_else", successes: pick(rest), trials: rest.devices)
        guard let compared = ABStatistics.compare(others, with: baseline), let controlRate = baseline.rate, let restRate = others.rate else { return nil }
        return ControlGroupComparison(controlRate: controlRate, restRate: restRate, difference: compared.difference, interval: compared.interval,
                                      lift: controlRate > 0 ? compared.difference / controlRate : nil, pValue: compared.pValue,
                                      enoughData: min(control.devices, rest.devices) >= ABStatistics.minimumSample)
    }

    public enum Metric: String, Sendable, CaseIterable { case opens, conversions }
}

/// What the pushes changed: everyone else's rate against the control group's.
public struct ControlGroupComparison: Sendable, Equatable {
    public var controlRate: Double
    public var restRate: Double
    /// restRate − controlRate, and its 95 % interval.
    public var difference: Double
    public var interval: ClosedRange<Double>
    /// The difference relative to the control group's rate; nil when that rate is 0.
    public var lift: Double?
    /// One-tailed: the chance of a difference this large if the pushes changed nothing.
    public var pValue: Double
    /// Both groups have at least `ABStatistics.minimumSample` devices.
    public var enoughData: Bool
}
