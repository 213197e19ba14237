import FCMMessage
import HeraldCore
import HeraldFCM
import HeraldJSON
import HeraldPostgres

/// Time-zone topics (`TimeZoneTopic`, for recipient time on topics): each active device is
/// subscribed to its zone's topic, and moved out of its old zone's when its zone changes, as
/// background work (a job of the "topic-subscriptions" service, as a segment's subscription is).
extension DeviceService {
    /// The active devices whose zone differs from the one last assigned, of the kinds `api`
    /// takes (the Instance ID API is documented for registration tokens only).
    private static func zoneChanged(_ api: TopicAPI) -> PostgresQuery {
        let kinds = api.takesInstallationIDs ? DeviceKind.allCases : [.token]
        return "status = \(constants: [DeviceStatus.active]) AND kind IN (\(constants: kinds)) AND subscribed_time_zone IS DISTINCT FROM time_zone"
    }

    /// Queues the assignment of every changed device's time-zone topic, or returns the one
    /// already queued or running (`queued` false): one is enough, and it reads the registry as it
    /// goes. Audited when queued, with how many devices it has to move.
    public func queueTimeZoneTopics(by actor: Actor) throws -> (job: TopicJob, queued: Bool) {
        guard let sender else { throw AppError.sendingNotConfigured }
        return try database.transaction { connection in
            let reach = try connection.query("SELECT count(*)::bigint FROM devices WHERE \(fragment: Self.zoneChanged(sender.configuration.topicAPI))")[0]
                .decode(Int.self, at: 0)
            let (job, queued) = try jobs.insertTimeZones(reach: reach, by: actor, on: connection)
            if queued {
                try AuditLog().record(.timeZoneTopicsAssigned, by: actor,
                                      details: ["job": .string(job.id.description), "reach": .number(Double(reach))], on: connection)
            }
            return (job, queued)
        }
    }

    /// A time-zone job's next devices after `after` in token order: each out of its old zone's
    /// topic and into its new one's. The zone each ends up assigned is the one it was moved to (a
    /// device whose zone changes again meanwhile is moved by the next job); a device FCM refused
    /// keeps its old assignment, to be tried again; the ones FCM says are gone are marked invalid.
    func timeZoneBatch(after: String?, sender: FCMSender) throws -> Batch {
        let api = sender.configuration.topicAPI
        let batch = try database.read { connection in
            try connection.query("""
                SELECT token, time_zone, subscribed_time_zone FROM devices
                WHERE \(fragment: Self.zoneChanged(api)) AND token > \(after ?? "")
                ORDER BY token LIMIT \(Self.jobBatch)
                """).map { try $0.decode((String, String?, String?).self, columns: "token", "time_zone", "subscribed_time_zone") }
        }
        guard let last = batch.last?.0 else { return .over(failure: nil) }
        let permits = subscriptionPermits(sender)
        var delta = TopicChange()
        delta.devices = batch.count
        var results: [TopicManagementResult] = []
        func count(_ result: TopicManagementResult) {
            delta.calls += result.calls
            delta.throttled += result.throttled
            delta.failed += result.failures.count
            delta.failures += result.failures.prefix(max(0, TopicChange.maximumFailures - delta.failures.count))
            results.append(result)
        }
        for (zone, rows) in Dictionary(grouping: batch.filter { $0.2 != nil }, by: { $0.2! }) {
            let result = try sender.unsubscribe(rows.map(\.0), from: TimeZoneTopic.name(zone), permits: permits, policy: nil)
            delta.unsubscribed += result.succeeded
            count(result)
        }
        for (zone, rows) in Dictionary(grouping: batch.filter { $0.1 != nil }, by: { $0.1! }) {
            let result = try sender.subscribe(rows.map(\.0), to: TimeZoneTopic.name(zone), permits: permits, policy: nil)
            delta.changed += result.succeeded
            if result.succeeded > 0 { delta.zones.insert(zone) }
            count(result)
        }
        let refused = Set(results.flatMap { $0.failures.map(\.token) })
        let moved = batch.filter { !refused.contains($0.0) }
        return .done(last: last, delta: delta, write: { connection in
            for result in results { try markGone(result, api: api, on: connection) }
            _ = try connection.execute("""
                UPDATE devices d SET subscribed_time_zone = nullif(x.zone, '')
                FROM unnest(\(moved.map(\.0)), \(moved.map { $0.1 ?? "" })) AS x(token, zone)
                WHERE d.token = x.token
                """)
        })
    }
}
