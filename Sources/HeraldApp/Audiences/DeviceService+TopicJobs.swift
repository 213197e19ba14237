import HeraldCore
import HeraldFCM
import HeraldJSON
import HeraldPostgres

/// A segment's subscription to a topic as background work: queued by a request, worked through by
/// any instance's "topic-subscriptions" service a batch at a time, its progress readable meanwhile.
extension DeviceService {
    /// Devices a batch reads and changes: at FCM's 3,000 a second, about half a second of work,
    /// so a job's progress (and a crash's repeat) moves in small steps.
    static let jobBatch = 1000
    /// How long a claim on a job lasts without progress; renewed with every batch.
    static let jobLeaseSeconds = 60

    /// The "topic-subscriptions" background service: on every instance (jobs are claimed with a
    /// lease), woken by a new job's notification, polling every `interval` for jobs whose lease
    /// ran out.
    func topicJobsService(owner: String, every interval: Duration, log: Log) -> BackgroundService {
        BackgroundService("topic-subscriptions", .everyInstance, every: interval, bell: Wakeup(), step: { pass in
            let finished = try runTopicJobs(owner: owner, isStopping: pass.isStopping)
            if finished > 0 { log.info("topic subscription jobs finished", ["jobs": .number(Double(finished))]) }
            return nil
        })
    }

    /// Queues the subscription (or unsubscription) of `segment`'s devices to `topic`. Audited.
    func queueTopicJob(topic: String, segment: SegmentID, unsubscribe: Bool, by actor: Actor) throws -> TopicJob {
        try database.transaction { connection in
            guard let saved = try SegmentService.load(segment, on: connection) else {
                throw AppError.invalidField("segment", "the segment does not exist", code: "not_found", title: "The segment does not exist")
            }
            let job = try jobs.insert(topic: topic, unsubscribe: unsubscribe, segment: segment, reach: try store.count(saved.rule, on: connection),
                                      by: actor, on: connection)
            try AuditLog().record(.topicSubscribed, by: actor, object: .topic(topic),
                                  details: ["unsubscribe": .bool(unsubscribe), "segment": .string(segment.description), "job": .string(job.id.description),
                                            "reach": .number(Double(job.reach))],
                                  on: connection)
            return job
        }
    }

    /// A subscription job, with its progress.
    public func topicJob(_ id: String) throws -> TopicJob {
        guard let id = TopicJobID(id), let job = try database.read({ try jobs.get(id, on: $0) }) else { throw AppError.notFound(.topicJob) }
        return job
    }

    /// Works through the jobs that are due (queued, or left by an instance whose lease ran out),
    /// one after another, a batch at a time, as `owner`, until none is left or `isStopping`
    /// says so (then the job in hand is left to be taken at once). Returns the jobs it finished.
    @discardableResult
    public func runTopicJobs(owner: String, isStopping: () -> Bool = { false }) throws -> Int {
        guard let sender else { return 0 }
        var finished = 0
        while !isStopping(), let job = try database.read({ try jobs.claim(owner: owner, leaseSeconds: Self.jobLeaseSeconds, on: $0) }) {
            if try run(job, owner: owner, sender: sender, isStopping: isStopping) { finished += 1 }
        }
        return finished
    }

    /// What one batch of a job did: the job is over (with why it failed, or nil), or FCM was
    /// asked about the devices up to `last`, and `delta` and `write` record it with the position.
    enum Batch {
        case over(failure: String?)
        case done(last: String, delta: TopicChange, write: (PostgresConnection) throws -> Void)
    }

    /// Runs one claimed job to its end; false when it stopped before (the lease was lost, or this
    /// instance is stopping).
    private func run(_ job: TopicJob, owner: String, sender: FCMSender, isStopping: () -> Bool) throws -> Bool {
        var after = job.afterToken
        while true {
            if isStopping() {
                try database.read { try jobs.release(job.id, owner: owner, on: $0) }
                return false
            }
            // No connection is held while FCM answers; the batch's outcome and the position are written together.
            let batch = switch job.kind {
            case .segment: try segmentBatch(job, after: after, sender: sender)
            case .timeZones: try timeZoneBatch(after: after, sender: sender)
            }
            switch batch {
            case .over(let failure):
                return try database.read { try jobs.finish(job.id, owner: owner, failure: failure, on: $0) }
            case .done(let last, let delta, let write):
                let kept = try database.transaction { connection in
                    guard try jobs.progress(job.id, owner: owner, after: last, delta: delta, leaseSeconds: Self.jobLeaseSeconds, on: connection) else { return false }
                    try write(connection)
                    return true
                }
                guard kept else { return false }
                after = last
            }
        }
    }

    /// A segment job's next devices, subscribed to (or unsubscribed from) its topic.
    private func segmentBatch(_ job: TopicJob, after: String?, sender: FCMSender) throws -> Batch {
        // The segment as it is now (a device that joins it before its turn comes is subscribed too).
        guard let segmentID = job.segmentID, let topic = job.topic,
              let segment = try database.read({ try SegmentService.load(segmentID, on: $0) }) else { return .over(failure: "the segment was deleted") }
        let batch = try database.read { try store.active(.segment(segment.rule), after: after, limit: Self.jobBatch, on: $0) }
        guard let last = batch.last?.device.token else { return .over(failure: nil) }
        var delta = TopicChange()
        let result = try changeTopic(of: batch, topic: topic, unsubscribe: job.unsubscribe, sender: sender, policy: nil, into: &delta)
        return .done(last: last, delta: delta, write: { try markGone(result, api: sender.configuration.topicAPI, on: $0) })
    }
}
