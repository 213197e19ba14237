import Foundation
import HeraldCore
import FCMMessage
import HeraldFCM

/// The project's sending quota, shared by every instance: the bucket's limit, the hold after
/// FCM's 429, and what /metrics shows of them.
extension DeliveryEngine {
    /// The bucket holds at most one worker round, the larger kind (to devices): a minute then
    /// sees at most the limit plus one round, and a round to devices is not cut to a topic round's
    /// size (which held sending to devices to a third of the quota).
    /// The bucket keeps two rounds a period under the limit (at most a hundredth of it): it holds
    /// sends to the rate plus one round, and a round sent late lands at FCM in the next window (at
    /// ten million devices, one 60 s window at FCM's side counted 600,325 of 600,000).
    var quotaLimit: SendQuotaStore.Limit? {
        let capacity = max(configuration.batchSize, configuration.deviceBatchSize)
        return configuration.sendRate.map {
            let margin = min(Double(2 * capacity), Double($0.messages) / 100)
            return SendQuotaStore.Limit(project: $0.project, ratePerSecond: (Double($0.messages) - margin) / $0.period.seconds, capacity: capacity)
        }
    }

    /// A 429 QUOTA_EXCEEDED may be about the whole project, one device or one topic
    /// (`shared/reference/fcm.md`, "QUOTA_EXCEEDED (429) covers three limits"), and holds only
    /// what it names:
    /// - a 429 to a topic or condition request holds every instance's fan-outs for what FCM asked
    ///   (Retry-After, at least the retry policy's minimum); requests to devices go on;
    /// - when half or more of a round's requests to devices were answered 429, it is the project's
    ///   rate: every instance's sending waits;
    /// - a device's own 429 among answers that went through backs off that device alone (its
    ///   request is retried after its own wait), holding nobody else.
    func holdWhatFCMAskedTo(_ answers: [SendOutcome], of requests: [DeliveryStore.Claimed]) {
        guard let limit = quotaLimit else { return }
        func waits(fanOut: Bool) -> (asked: [Duration], answers: Int) {
            let answered = zip(requests, answers).filter { $0.0.fanOut == fanOut }.map(\.1)
            return (answered.compactMap { answer -> Duration? in
                guard case .failed(let error) = answer, error.code == .quotaExceeded else { return nil }
                return max(error.retryAfter ?? .zero, configuration.retryPolicy.quotaExceededMinimumDelay)
            }, answered.count)
        }
        let fanOuts = waits(fanOut: true), devices = waits(fanOut: false)
        if let wait = fanOuts.asked.max() {
            hold(limit.fanOuts, for: wait, counted: "herald_fcm_fan_out_holds_total",
                 help: "Times this process held every instance's topic fan-outs after FCM answered 429 to one.",
                 warning: "FCM answered 429 to a topic fan-out: every instance's fan-outs wait")
        }
        guard devices.asked.count * 2 >= devices.answers, let wait = devices.asked.max() else {
            if !devices.asked.isEmpty { metrics.increment("herald_fcm_device_quota_answers_total", by: Double(devices.asked.count),
                                                          help: "429 answers about one device, which held nothing else.") }
            return
        }
        hold(limit, for: wait, counted: "herald_fcm_quota_holds_total", help: "Times this process held every instance's sending after FCM answered 429.",
             warning: "FCM answered 429: every instance holds sending")
    }

    private func hold(_ limit: SendQuotaStore.Limit, for wait: Duration, counted name: String, help: String, warning: String) {
        do {
            let snapshot = try outbox.holdSending(for: wait.seconds, limit: limit)
            if limit == quotaLimit { lastBucket.withLock { $0 = snapshot } }
            metrics.increment(name, help: help)
            log.warning("\(warning) for \(wait.seconds) s", ["project": .string(limit.project)])
        } catch {
            log.warning("holding \(limit.project) after a 429 failed: \(error)")
        }
    }

    /// The gauges /metrics shows of the shared quota: the rate and the bucket as last seen.
    public var quotaGauges: [(name: String, help: String, value: Double)] {
        var gauges: [(name: String, help: String, value: Double)] = []
        if let labels = labelsToday.withLock({ $0 }) {
            gauges.append(("herald_fcm_labels_today", "Distinct analytics labels sent today (UTC) by every instance; FCM reports at most 100 a day.", Double(labels)))
            gauges.append(("herald_fcm_labels_daily_limit", "Analytics labels FCM reports a day; later ones go unreported.", Double(LabelBudget.dailyLimit)))
        }
        guard let rate = configuration.sendRate else { return gauges }
        gauges += [("herald_fcm_rate_limit_per_minute", "The FCM project's sending quota shared by every instance, in messages a minute.",
                       rate.perSecond * 60)]
        if let bucket = lastBucket.withLock({ $0 }) {
            gauges.append(("herald_fcm_bucket_tokens", "Tokens left in the shared bucket when this process last took some.", bucket.tokens))
            gauges.append(("herald_fcm_bucket_hold_seconds", "Seconds every instance still waited after a 429 when this process last looked.",
                           bucket.holdSeconds))
        }
        return gauges
    }
}
