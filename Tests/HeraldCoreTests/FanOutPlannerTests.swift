import Foundation
import HeraldCore
import FCMMessage
import HeraldJSON
import Testing

@Suite struct FanOutPlannerTests {
    static let sendTime = Date(timeIntervalSince1970: 1_800_000_000)

    func spec(_ audience: Audience, variants: [(String, Int)] = [], holdout: Int = 0) -> CampaignSpec {
        CampaignSpec(
            name: "n", notification: NotificationContent(title: "T", body: "B"), audience: audience,
            variants: variants.map { VariantSpec(key: $0.0, weight: $0.1, notification: NotificationContent(body: "Body \($0.0)")) },
            holdoutPercent: holdout)
    }

    @Test func oneTopicWithoutABIsOneTopicRequest() {
        let result = plan(campaign: spec(.topics(["news"])), campaignID: "c1", sendTime: Self.sendTime)
        #expect(result.requests.map(\.target) == [.topic("news")])
        #expect(result.requests.first?.message.target == .topic("news"))
        #expect(result.requests.first?.message.fcmOptions?.analyticsLabel == "herald-c1-A")
        #expect(result.warnings.isEmpty)
    }

    @Test func severalTopicsAreOredInOneCondition() {
        let result = plan(campaign: spec(.topics(["a", "b", "c"])), campaignID: nil, sendTime: Self.sendTime)
        #expect(result.requests.map(\.target) == [.condition("'a' in topics || 'b' in topics || 'c' in topics")])
        #expect(result.warnings.isEmpty)
    }

    @Test func moreThanFiveTopicsAreSplitWithAWarning() {
        let topics = (1...7).map { "t\($0)" }
        let result = plan(campaign: spec(.topics(topics)), campaignID: nil, sendTime: Self.sendTime)
        #expect(result.requests.map(\.target) == [
            .condition("'t1' in topics || 't2' in topics || 't3' in topics || 't4' in topics || 't5' in topics"),
            .condition("'t6' in topics || 't7' in topics"),
        ])
        #expect(result.warnings.count == 1)
        #expect(result.warnings.first?.contains("more than once") == true)
    }

    @Test func abVariantsGetContiguousBucketShares() {
        let result = plan(campaign: spec(.topics(["news"]), variants: [("A", 50), ("B", 50)]), campaignID: nil, sendTime: Self.sendTime)
        #expect(result.allocation == [VariantBuckets(key: "A", buckets: 0..<10), VariantBuckets(key: "B", buckets: 10..<20)])
        #expect(result.requests(for: "A").first?.target == .condition(
            "'news' in topics && ('herald-bucket-00' in topics || 'herald-bucket-01' in topics || 'herald-bucket-02' in topics || 'herald-bucket-03' in topics)"))
        #expect(result.requests(for: "A").count == 3)  // 10 buckets, 4 per condition beside 'news'
        #expect(result.requests(for: "B").last?.target == .condition(
            "'news' in topics && ('herald-bucket-18' in topics || 'herald-bucket-19' in topics)"))
        #expect(result.requests(for: "B").allSatisfy { $0.message.notification?.body == "Body B" })
    }

    @Test func holdoutBucketsGetNothing() {
        let result = plan(campaign: spec(.topics(["news"]), variants: [("A", 1)], holdout: 10), buckets: 20, campaignID: nil, sendTime: Self.sendTime)
        #expect(result.holdoutBuckets == 18..<20)
        #expect(result.allocation == [VariantBuckets(key: "A", buckets: 0..<18)])
        let named = Set(result.requests.flatMap { (try? TopicCondition.parse($0.target.value))?.topicMentions ?? [] })
        #expect(!named.contains("herald-bucket-18") && !named.contains("herald-bucket-19"))
    }

    @Test func aUserConditionIsCombinedWithBuckets() {
        let result = plan(campaign: spec(.condition("'a' in topics || 'b' in topics"), variants: [("A", 1), ("B", 1)]),
                          buckets: 4, campaignID: nil, sendTime: Self.sendTime)
        #expect(result.requests.map(\.target.value) == [
            "('a' in topics || 'b' in topics) && ('herald-bucket-00' in topics || 'herald-bucket-01' in topics)",
            "('a' in topics || 'b' in topics) && ('herald-bucket-02' in topics || 'herald-bucket-03' in topics)",
        ])
    }

    @Test func bucketTopicsFollowTheClientConvention() {
        let buckets = AudienceBuckets(count: 20)
        #expect(buckets.topic(7) == "herald-bucket-07")
        #expect(AudienceBuckets(count: 200).topic(7) == "herald-bucket-007")
        // FNV-1a 64 of "" is the offset basis, 14695981039346656037 % 20 = 17.
        #expect(buckets.bucket(forInstallation: "") == 17)
        #expect((0..<1000).allSatisfy { (0..<20).contains(buckets.bucket(forInstallation: "install-\($0)")) })
    }

    @Test(arguments: [
        ([1, 1], 20, 0, [10, 10], 0), ([1, 2, 1], 20, 0, [5, 10, 5], 0), ([1, 1, 1], 20, 0, [7, 7, 6], 0),
        ([50, 50], 20, 10, [9, 9], 2), ([1, 1000], 20, 0, [1, 19], 0), ([1], 20, 99, [1], 19), ([1, 1], 1, 0, [1, 0], 0),
    ])
    func allocation(weights: [Int], buckets: Int, holdout: Int, counts: [Int], holdoutCount: Int) {
        let result = FanOutPlanner.allocate(weights, buckets: buckets, holdoutPercent: holdout)
        #expect(result.variants.map(\.count) == counts)
        #expect(result.holdout.count == holdoutCount)
        #expect(result.holdout.upperBound == buckets)
    }
}

@Suite struct FanOutPlanJSONTests {
    @Test func previewShowsExactBodiesAndTheBucketSplit() throws {
        let spec = try campaign("""
            {"name": "n", "topics": ["news"], "notification": {"body": "b"},
             "variants": [{"key": "A", "weight": 1}, {"key": "B", "weight": 1}], "holdout_percent": 50}
            """)
        let plan = FanOutPlanner.plan(campaign: spec, buckets: AudienceBuckets(count: 4), campaignID: nil, sendTime: Date(timeIntervalSince1970: 0))
        let json = plan.toJSON()
        #expect(json["buckets"] == [
            "count": 4, "prefix": "herald-bucket-",
            "variants": [["key": "A", "topics": ["herald-bucket-00"]], ["key": "B", "topics": ["herald-bucket-01"]]],
            "holdout_topics": ["herald-bucket-02", "herald-bucket-03"],
        ])
        let first = try #require(json["requests"]?.arrayValue?.first)
        #expect(first["target"] == ["condition": "'news' in topics && 'herald-bucket-00' in topics"])
        #expect(first["body"] == (try JSON.parse(plan.requests[0].message.sendBody(validateOnly: false))))
        #expect(first["payload_bytes"] == .number(Double(#"{"notification":{"body":"b"}}"#.utf8.count)))
        #expect(first["payload_limit"] == 2048)
    }
}

/// The winner sent to the rest of the audience: the holdout's buckets, nothing else.
@Suite struct RolloutPlanTests {
    @Test func theWinnerGoesToExactlyTheHoldoutBuckets() throws {
        let spec = try campaign("""
            {"name": "ab", "topics": ["news", "offers"], "notification": {"title": "T"},
             "variants": [{"key": "A", "weight": 1}, {"key": "B", "weight": 1, "notification": {"title": "B wins"}}], "holdout_percent": 25}
            """)
        let buckets = AudienceBuckets(count: 20)
        let test = FanOutPlanner.plan(campaign: spec, buckets: buckets, campaignID: "c", sendTime: Date(timeIntervalSince1970: 0))
        let rollout = FanOutPlanner.planRollout(campaign: spec, variantKey: "B", buckets: buckets, campaignID: "c", sendTime: Date(timeIntervalSince1970: 0))
        #expect(rollout.allocation == [VariantBuckets(key: "B", buckets: test.holdoutBuckets)])
        #expect(test.holdoutBuckets.count == 5)
        #expect(!rollout.requests.isEmpty && rollout.requests.allSatisfy { $0.variantKey == "B" && $0.message.notification?.title == "B wins" })
        let named = rollout.requests.compactMap { request -> String? in if case .condition(let c) = request.target { c } else { nil } }.joined()
        for bucket in test.holdoutBuckets { #expect(named.contains("'\(buckets.topic(bucket))'")) }
        for bucket in 0..<test.holdoutBuckets.lowerBound { #expect(!named.contains("'\(buckets.topic(bucket))'")) }
        #expect(named.contains("'news'") && named.contains("'offers'"))
    }

    @Test func withoutAHoldoutNobodyIsLeft() throws {
        let spec = try campaign("""
            {"name": "ab", "topics": ["news"], "notification": {"title": "T"}, "variants": [{"key": "A", "weight": 1}, {"key": "B", "weight": 1}]}
            """)
        let rollout = FanOutPlanner.planRollout(campaign: spec, variantKey: "A", campaignID: "c", sendTime: Date())
        #expect(rollout.requests.isEmpty && rollout.warnings.first?.contains("no audience bucket is left") == true)
    }
}
