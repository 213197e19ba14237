import Foundation
import HeraldCore
import FCMMessage
import HeraldFCM // SplitMix64, a seeded generator
import Testing


/// Simulated devices against random campaigns: each device subscribes to random audience topics
/// and to exactly one bucket topic; a request reaches it when its target matches its topics.
@Suite struct FanOutPropertyTests {
    struct Device {
        var topics: Set<String>
        var bucket: Int
    }

    static let pool = ["news", "sport", "deals", "weather", "music", "film", "tech", "travel"]

    func randomCondition(mentions: Int, using rng: inout SplitMix64) -> TopicCondition {
        if mentions == 1 {
            let leaf = TopicCondition.subscribed(Self.pool.randomElement(using: &rng)!)
            return Bool.random(using: &rng) && Int.random(in: 0..<4, using: &rng) == 0 ? .not(leaf) : leaf
        }
        let left = Int.random(in: 1..<mentions, using: &rng)
        let lhs = randomCondition(mentions: left, using: &rng), rhs = randomCondition(mentions: mentions - left, using: &rng)
        return Bool.random(using: &rng) ? .and(lhs, rhs) : .or(lhs, rhs)
    }

    func randomCampaign(using rng: inout SplitMix64) -> CampaignSpec {
        let variantCount = Int.random(in: 1...4, using: &rng)
        let variants = (0..<variantCount).map { index in
            VariantSpec(key: "V\(index)", weight: Int.random(in: 1...10, using: &rng), notification: NotificationContent(body: "v\(index)"))
        }
        let holdout = Bool.random(using: &rng) ? Int.random(in: 1...40, using: &rng) : 0
        let usesBuckets = variantCount > 1 || holdout > 0
        let audience: Audience
        if Bool.random(using: &rng) {
            audience = .topics(Array(Self.pool.shuffled(using: &rng).prefix(Int.random(in: 1...8, using: &rng))))
        } else {
            let mentions = Int.random(in: 1...(usesBuckets ? 4 : 5), using: &rng)
            audience = .condition(randomCondition(mentions: mentions, using: &rng).description)
        }
        return CampaignSpec(name: "p", notification: NotificationContent(title: "t"), audience: audience,
                            variants: variantCount == 1 && Bool.random(using: &rng) ? [] : variants, holdoutPercent: holdout)
    }

    func matchesAudience(_ audience: Audience, _ topics: Set<String>) throws -> Bool {
        switch audience {
        case .topics(let names): !topics.isDisjoint(with: names)
        case .condition(let text): try TopicCondition.parse(text).evaluate(subscriptions: topics)
        case .segment, .tokens: false  // random campaigns here target topics only
        }
    }

    @Test(arguments: [UInt64(1), 2, 3, 4, 5, 6, 7, 8])
    func devicesGetAtMostOneVariantAndExactlyOneMessageWhenTargetsFit(seed: UInt64) throws {
        var rng = SplitMix64(state: seed)
        for round in 0..<40 {
            let campaign = randomCampaign(using: &rng)
            let buckets = AudienceBuckets(count: Int.random(in: 2...30, using: &rng))
            let result = FanOutPlanner.plan(campaign: campaign, buckets: buckets, campaignID: "c\(round)", sendTime: .init(timeIntervalSince1970: 0))
            let context = "seed \(seed) round \(round): \(campaign.toJSON().serializedString()) buckets \(buckets.count)"

            // Every request is one FCM accepts: at most 5 topics in a condition, a valid message.
            let matchers: [(key: String, matches: (Set<String>) -> Bool)] = try result.requests.map { request in
                #expect(request.message.problems() == [], "\(context)")
                switch request.target {
                case .topic(let topic): return (request.variantKey, { $0.contains(topic) })
                case .condition(let text):
                    let condition = try TopicCondition.parse(text)
                    #expect(condition.topicCount <= 5, "\(context)")
                    return (request.variantKey, { condition.evaluate(subscriptions: $0) })
                case .token, .fid: Issue.record("a plan never targets single devices"); return (request.variantKey, { _ in false })
                }
            }

            let audienceTopics: Int
            switch campaign.audience {
            case .topics(let names): audienceTopics = names.count
            case .condition(let text): audienceTopics = try TopicCondition.parse(text).topicCount
            case .segment, .tokens: audienceTopics = 0
            }
            let fits = audienceTopics <= (campaign.usesBuckets ? 4 : 5)
            let owned = result.allocation.flatMap { share in share.buckets.map { ($0, share.key) } }
            let bucketOwner = Dictionary(owned, uniquingKeysWith: { first, _ in first })
            #expect(bucketOwner.count == owned.count, "a bucket is given to two variants; \(context)")
            #expect(result.allocation.allSatisfy { !$0.buckets.overlaps(result.holdoutBuckets) }, "\(context)")

            for _ in 0..<300 {
                let bucket = Int.random(in: 0..<buckets.count, using: &rng)
                var topics = Set(Self.pool.filter { _ in Int.random(in: 0..<10, using: &rng) < 3 })
                let audienceMatch = try matchesAudience(campaign.audience, topics)
                topics.insert(buckets.topic(bucket))
                let received = matchers.filter { $0.matches(topics) }.map(\.key)
                #expect(Set(received).count <= 1, "a device received two variants: \(received); \(context)")
                let eligible = audienceMatch && (!campaign.usesBuckets || bucketOwner[bucket] != nil)
                if fits {
                    #expect(received.count == (eligible ? 1 : 0), "bucket \(bucket) topics \(topics.sorted()) got \(received); \(context)")
                } else {
                    #expect(received.isEmpty == !eligible, "\(context)")
                }
                if campaign.usesBuckets, let key = received.first {
                    #expect(bucketOwner[bucket] == key, "\(context)")
                }
            }

            // Shares follow the weights to the bucket granularity.
            if campaign.usesBuckets {
                let weights = campaign.effectiveVariants.map(\.weight)
                let total = Double(weights.reduce(0, +))
                let shared = buckets.count - result.holdoutBuckets.count
                #expect(result.allocation.map(\.buckets.count).reduce(0, +) == shared, "\(context)")
                let exact = weights.map { Double(shared) * Double($0) / total }
                if exact.allSatisfy({ $0 >= 1 }) {
                    for (share, ideal) in zip(result.allocation, exact) {
                        #expect(abs(Double(share.buckets.count) - ideal) < 1, "\(share.key): \(share.buckets.count) for \(ideal); \(context)")
                    }
                }
                let holdoutIdeal = Double(buckets.count * campaign.holdoutPercent) / 100
                if holdoutIdeal >= 0.5, buckets.count - Int(holdoutIdeal.rounded()) >= weights.count {
                    #expect(abs(Double(result.holdoutBuckets.count) - holdoutIdeal) <= 0.5, "\(context)")
                }
            }
        }
    }
}
