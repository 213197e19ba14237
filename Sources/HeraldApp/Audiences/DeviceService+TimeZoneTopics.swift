import FCMMessage
import HeraldCore
import HeraldFCM
import HeraldJSON
import HeraldPostgres

extension DeviceService {
    /// What assigning time-zone topics did.
    public struct TimeZoneTopicChange: Sendable, Equatable {
        /// Devices whose zone had changed since their last assignment (or never had one).
        public var devices = 0
        public var subscribed = 0
        public var unsubscribed = 0
        public var failed = 0
        /// Calls to FCM made (see `TopicChange.calls`).
        public var calls = 0
        /// The zones whose topics gained devices.
        public var zones: Set<String> = []

        /// The audit entry's details: the counts and the zones.
        var auditDetails: JSONObject {
            ["devices": .number(Double(devices)), "subscribed": .number(Double(subscribed)), "unsubscribed": .number(Double(unsubscribed)),
             "failed": .number(Double(failed)), "calls": .number(Double(calls)), "zones": .array(zones.sorted().map(JSON.string))]
        }
    }

    /// Subscribes each active device to its zone's time-zone topic (`TimeZoneTopic`) through the
    /// configured topic API, and a device whose zone changed out of its old one, so that recipient time
    /// on topics reaches it in its own wave. Only devices whose zone differs from the one last
    /// assigned are touched, a batch at a time; devices FCM says are gone are marked invalid. Audited.
    /// Devices registered by an installation ID are touched only through v1 (see `TopicChange.skippedFIDs`).
    public func assignTimeZoneTopics(by actor: Actor) throws -> TimeZoneTopicChange {
        guard let sender else { throw AppError.sendingNotConfigured }
        let api = sender.configuration.topicAPI
        let permits = subscriptionPermits(sender)
        // The kinds of registration the API takes: the Instance ID API is documented for tokens only.
        let kinds = api.takesInstallationIDs ? DeviceKind.allCases.map(\.rawValue) : [DeviceKind.token.rawValue]
        var change = TimeZoneTopicChange()
        var after = ""
        while true {
            let done = try database.transaction { connection -> Bool in
                let batch = try connection.query("""
                    SELECT token, time_zone, subscribed_time_zone FROM devices
                    WHERE status = \(constants: [DeviceStatus.active]) AND kind = ANY(\(kinds)) AND subscribed_time_zone IS DISTINCT FROM time_zone AND token > \(after)
                    ORDER BY token LIMIT \(10 * FCMSender.topicManagementBatch)
                    """).map { try $0.decode((String, String?, String?).self, columns: "token", "time_zone", "subscribed_time_zone") }
                guard let last = batch.last else { return true }
                after = last.0
                change.devices += batch.count
                var refused: Set<String> = []
                func apply(_ result: TopicManagementResult) throws {
                    change.calls += result.calls
                    change.failed += result.failures.count
                    refused.formUnion(result.failures.map(\.token))
                    try markGone(result, api: api, on: connection)
                }
                for (zone, rows) in Dictionary(grouping: batch.filter { $0.2 != nil }, by: { $0.2! }) {
                    let result = try sender.unsubscribe(rows.map(\.0), from: TimeZoneTopic.name(zone), permits: permits, policy: Self.withinARequest)
                    change.unsubscribed += result.succeeded
                    try apply(result)
                }
                for (zone, rows) in Dictionary(grouping: batch.filter { $0.1 != nil }, by: { $0.1! }) {
                    let result = try sender.subscribe(rows.map(\.0), to: TimeZoneTopic.name(zone), permits: permits, policy: Self.withinARequest)
                    change.subscribed += result.succeeded
                    change.zones.insert(zone)
                    try apply(result)
                }
                let moved = batch.map(\.0).filter { !refused.contains($0) }
                _ = try connection.execute("""
                    UPDATE devices SET subscribed_time_zone = time_zone WHERE token = ANY(\(moved))
                    """)
                return false
            }
            if done { break }
        }
        try database.transaction { connection in
            try AuditLog().record(.timeZoneTopicsAssigned, by: actor, details: change.auditDetails, on: connection)
        }
        return change
    }
}
