import Foundation
import FCMMessage

/// Plans one run of a campaign into v1 requests (DESIGN.md, "The fan-out planner"). Pure.
///
/// - One topic and no A/B: one request to that `topic`.
/// - Several topics: one `condition` that ORs them, so a device subscribed to several is notified
///   once. Beyond FCM's 5 topics per condition they are split into several conditions, with a
///   warning: a device subscribed to topics of two of them is notified twice.
/// - A user condition without A/B: sent as written.
/// - A/B variants or a holdout: audience buckets (`AudienceBuckets`). Each variant gets a
///   contiguous share of the buckets proportional to its weight (largest remainder, at least one
///   bucket each when there are enough), the holdout share gets none, and each request's
///   condition is `<audience> && (<bucket> || <bucket> …)` with every topic mention counted
///   against the 5-topic limit: the audience part stays whole when it names at most 4 topics
///   (then devices in a variant's buckets get exactly one message), and the bucket part is split
///   into as many requests as needed. Buckets are disjoint, so no device can receive two variants.
public enum FanOutPlanner {
    /// Plans `campaign` for one run. `campaignID` and `sendTime` are passed to the renderer.
    /// `topicLimit` is the topics a condition may name: FCM's 5, or fewer when another topic is
    /// added to every condition afterwards (recipient time's time-zone topic).
    public static func plan(
        campaign: CampaignSpec, buckets: AudienceBuckets = AudienceBuckets(), campaignID: String?, sendTime: Date,
        topicLimit: Int = TopicCondition.maximumTopics
    ) -> FanOutPlan {
        var plan = FanOutPlan(requests: [], warnings: [], allocation: [], holdoutBuckets: 0..<0, buckets: buckets)
        let variants = campaign.effectiveVariants
        func add(_ variant: Variant, _ target: Target) {
            plan.requests.append(request(campaign, variant, target, campaignID: campaignID, sendTime: sendTime))
        }
        if campaign.audience.isPerDevice {
            // Planned per device when it runs (`DevicePlanner`); a preview shows each variant once,
            // with its variables at their defaults, to a stand-in device.
            plan.warnings.append("sent as one request per device; each variant is shown once, its variables at their defaults")
            let example: String
            if case .tokens(let tokens) = campaign.audience, let first = tokens.first { example = first } else { example = "DEVICE_TOKEN" }
            for variant in variants { add(variant.withDefaults, .token(example)) }
            return plan
        }

        guard campaign.usesBuckets else {
            guard let variant = variants.first else { return plan }
            switch campaign.audience {
            case .condition(let condition):
                add(variant, .condition(condition))
            case .segment, .tokens:
                break  // planned per device above
            case .topics(let topics):
                let chunks = topics.chunked(topicLimit)
                if chunks.count > 1 {
                    plan.warn(.splitCondition(topics: topics.count, conditions: chunks.count))
                }
                for chunk in chunks {
                    add(variant, chunk.count == 1 ? .topic(chunk[0]) : .condition(anyOf(chunk).description))
                }
            }
            return plan
        }

        let (allocation, holdout) = allocate(variants.map(\.weight), buckets: buckets.count, holdoutPercent: campaign.holdoutPercent)
        plan.holdoutBuckets = holdout
        for (variant, range) in zip(variants, allocation) {
            plan.allocation.append(VariantBuckets(key: variant.key, buckets: range))
            if range.isEmpty {
                plan.warn(.noBucket(variant: variant.key, buckets: buckets.count))
            }
        }

        addBucketed(Array(zip(variants, allocation)), of: campaign, campaignID: campaignID, sendTime: sendTime, topicLimit: topicLimit, to: &plan)
        return plan
    }

    /// The winner of an A/B test sent to the rest of the audience: `variantKey` to the holdout's
    /// buckets, which got nothing during the test (so no device gets two variants). Without a
    /// holdout nobody is left, and the plan is empty with a warning saying so.
    public static func planRollout(
        campaign: CampaignSpec, variantKey: String, buckets: AudienceBuckets = AudienceBuckets(), campaignID: String?, sendTime: Date
    ) -> FanOutPlan {
        let test = plan(campaign: campaign, buckets: buckets, campaignID: campaignID, sendTime: sendTime)
        var rollout = FanOutPlan(requests: [], warnings: [], allocation: [], holdoutBuckets: 0..<0, buckets: buckets)
        guard let variant = campaign.variant(variantKey) else {
            rollout.warn(.unknownVariant(variantKey))
            return rollout
        }
        guard campaign.usesBuckets, !test.holdoutBuckets.isEmpty else {
            rollout.warn(.wholeAudienceTested)
            return rollout
        }
        rollout.allocation = [VariantBuckets(key: variant.key, buckets: test.holdoutBuckets)]
        addBucketed([(variant, test.holdoutBuckets)], of: campaign, campaignID: campaignID, sendTime: sendTime,
                    topicLimit: TopicCondition.maximumTopics, to: &rollout)
        return rollout
    }

    /// The requests that send each variant to its buckets of the campaign's audience.
    static func addBucketed(_ assignments: [(Variant, Range<Int>)], of campaign: CampaignSpec, campaignID: String?, sendTime: Date,
                            topicLimit: Int, to plan: inout FanOutPlan) {
        let buckets = plan.buckets
        func add(_ variant: Variant, _ target: Target) {
            plan.requests.append(request(campaign, variant, target, campaignID: campaignID, sendTime: sendTime))
        }
        let audienceParts: [TopicCondition]
        switch campaign.audience {
        case .condition(let text):
            guard let parsed = try? TopicCondition.parse(text), parsed.topicCount < topicLimit else {
                plan.warn(.noRoomForBuckets(maximumTopics: topicLimit - 1))
                return
            }
            audienceParts = [parsed]
        case .segment, .tokens:
            return  // planned per device (`DevicePlanner`)
        case .topics(let topics):
            let size = audienceChunkSize(topics: topics.count, buckets: assignments.map(\.1.count).max() ?? 1, limit: topicLimit)
            let chunks = topics.chunked(size)
            if chunks.count > 1 {
                plan.warn(.splitCondition(topics: topics.count, conditions: chunks.count))
            }
            audienceParts = chunks.map(anyOf)
        }
        for (variant, range) in assignments where !range.isEmpty {
            for audience in audienceParts {
                let room = topicLimit - audience.topicCount
                for bucketChunk in Array(range).chunked(room) {
                    let condition = TopicCondition.and(audience, anyOf(bucketChunk.map(buckets.topic)))
                    add(variant, .condition(condition.description))
                }
            }
        }
    }

    static func request(_ campaign: CampaignSpec, _ variant: Variant, _ target: Target, campaignID: String?, sendTime: Date) -> PlannedRequest {
        PlannedRequest(variantKey: variant.key, target: target,
                       message: Renderer.render(campaign: campaign, variant: variant, target: target, campaignID: campaignID, sendTime: sendTime))
    }

    /// Splits `buckets` buckets: the holdout's share (rounded, at least one when asked for, and
    /// leaving one per variant when possible) at the end, the rest to the variants by weight with
    /// the largest-remainder method, contiguous and in order.
    public static func allocate(_ weights: [Int], buckets: Int, holdoutPercent: Int) -> (variants: [Range<Int>], holdout: Range<Int>) {
        var holdout = Int((Double(buckets * holdoutPercent) / 100).rounded())
        if holdoutPercent > 0 { holdout = max(holdout, 1) }
        holdout = min(holdout, max(0, buckets - weights.count))
        let shared = buckets - holdout
        let total = weights.reduce(0, +)
        guard total > 0 else { return (weights.map { _ in 0..<0 }, shared..<buckets) }
        var counts = weights.map { shared * $0 / total }
        let byRemainder = weights.indices.sorted {
            let lhs = shared * weights[$0] % total, rhs = shared * weights[$1] % total
            return lhs != rhs ? lhs > rhs : $0 < $1
        }
        for index in byRemainder.prefix(shared - counts.reduce(0, +)) { counts[index] += 1 }
        // Every variant gets a bucket when there are enough: take one from the largest share.
        for index in counts.indices where counts[index] == 0 {
            if let donor = counts.indices.max(by: { counts[$0] < counts[$1] }), counts[donor] > 1 {
                counts[donor] -= 1
                counts[index] = 1
            }
        }
        var start = 0
        let ranges = counts.map { count in
            defer { start += count }
            return start..<(start + count)
        }
        return (ranges, shared..<buckets)
    }

    /// How many audience topics go in one condition next to the buckets: all of them when at most
    /// four (no duplicates), otherwise the split that needs the fewest requests.
    static func audienceChunkSize(topics: Int, buckets: Int, limit: Int = TopicCondition.maximumTopics) -> Int {
        if topics < limit { return max(1, topics) }
        let sizes = 1..<limit
        return sizes.min { lhs, rhs in
            let lhsCount = topics.divided(up: lhs) * buckets.divided(up: limit - lhs)
            let rhsCount = topics.divided(up: rhs) * buckets.divided(up: limit - rhs)
            return lhsCount != rhsCount ? lhsCount < rhsCount : lhs > rhs
        } ?? 1
    }

    /// `'a' in topics || 'b' in topics || …`.
    static func anyOf(_ topics: [String]) -> TopicCondition {
        topics.dropFirst().reduce(.subscribed(topics[0])) { .or($0, .subscribed($1)) }
    }

}

/// Plans `campaign` for one run; see `FanOutPlanner`.
public func plan(campaign: CampaignSpec, buckets: Int = 20, campaignID: String?, sendTime: Date) -> FanOutPlan {
    FanOutPlanner.plan(campaign: campaign, buckets: AudienceBuckets(count: buckets), campaignID: campaignID, sendTime: sendTime)
}

extension Array {
    /// Consecutive slices of at most `size` elements.
    func chunked(_ size: Int) -> [[Element]] {
        stride(from: 0, to: count, by: Swift.max(1, size)).map { Array(self[$0..<Swift.min($0 + Swift.max(1, size), count)]) }
    }
}

extension Int {
    func divided(up divisor: Int) -> Int { (self + divisor - 1) / divisor }
}
