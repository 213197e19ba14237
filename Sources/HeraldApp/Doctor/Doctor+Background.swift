import Foundation
import HeraldPostgres

extension Doctor {
    /// Instances that reported within this long count as running (three missed reports).
    static let runningWithin = BackgroundRuntime.reportInterval.seconds * 3

    /// The background services of the running instances, as they last reported them, and which
    /// instance leads the once-per-deployment chores. A problem: instances run but none holds a
    /// live lease (the chores stop), or a service's last step failed.
    static func background(_ connection: PostgresConnection?) -> Check {
        let name = "background services"
        guard let connection else { return Check(name: name, outcome: .skipped, detail: "needs the database") }
        let instances: [InstanceReportStore.Instance]
        let holder: LeaderLeaseStore.Holder?
        do {
            instances = try InstanceReportStore().seen(withinSeconds: runningWithin, on: connection).filter { !$0.stopped }
            holder = try LeaderLeaseStore().holder(Leadership.leaseName, on: connection)
        } catch {
            return Check(name: name, outcome: .problem, detail: "cannot read the instances' reports (are the migrations applied?): \(error)")
        }
        guard !instances.isEmpty else {
            return Check(name: name, outcome: .skipped,
                         detail: "no running instance has reported in the last \(Int(runningWithin)) s (`herald serve` with HERALD_SCHEDULER on reports every \(Int(BackgroundRuntime.reportInterval.seconds)) s)")
        }
        let leader = holder.flatMap { $0.secondsLeft > 0 ? $0 : nil }
        var problems: [String] = []
        if leader == nil {
            problems.append("no instance holds the leader lease: retention, the census fold, stale marking and the Data API poll are not running")
        }
        var lines = ["\(instances.count) instance\(instances.count == 1 ? "" : "s") running; leader: "
            + (leader.map { "\($0.owner) (lease \(Int($0.secondsLeft.rounded(.up))) s left)" } ?? "none")]
        let now = Date()
        for instance in instances {
            lines.append("  \(instance.owner)\(instance.owner == leader?.owner ? " (leader)" : ""), up \(Int(now.timeIntervalSince(instance.startedAt))) s, seen \(Int(instance.secondsSinceSeen)) s ago:")
            for service in instance.services {
                let last = service.lastStarted.map { "last step \(String(format: "%.1f", now.timeIntervalSince($0))) s ago"
                    + (service.lastDurationSeconds.map { String(format: " (%.0f ms)", $0 * 1000) } ?? "") }
                    ?? (service.waitingForLeadership ? "waits for the leader lease" : "no step yet")
                lines.append("    \(service.name) [\(service.scope.rawValue), every \(Int(service.intervalSeconds)) s]: \(last), \(service.steps) steps, \(service.errors) errors"
                    + (service.lastFailed ? "; last step FAILED: \(service.lastError ?? "")" : ""))
                if service.lastFailed { problems.append("\(service.name) on \(instance.owner) failed its last step: \(service.lastError ?? "")") }
            }
        }
        return Check(name: name, outcome: problems.isEmpty ? .ok : .problem,
                     detail: ((problems.isEmpty ? [] : [problems.joined(separator: "; ")]) + lines).joined(separator: "\n"))
    }
}
