import FCMMessage
import Foundation

extension FanOutPlanner {
    /// Recipient time on topics: the campaign's plan, made with one topic's room left in every
    /// condition, sent once per time zone with that zone's time-zone topic ANDed in
    /// (`'news' in topics && 'tz.Asia.Tehran' in topics`), so each zone's wave reaches only the
    /// devices subscribed to its zone's topic. Devices subscribed to no time-zone topic get nothing.
    public static func planInZones(campaign: CampaignSpec, zones: [String], buckets: AudienceBuckets = AudienceBuckets(),
                                   campaignID: String?, sendTime: Date) -> FanOutPlan {
        let base = plan(campaign: campaign, buckets: buckets, campaignID: campaignID, sendTime: sendTime,
                        topicLimit: TopicCondition.maximumTopics - 1)
        var zoned = base
        zoned.requests = []
        if zones.isEmpty { zoned.warn(.noTimeZones) }
        let variants = Dictionary(campaign.effectiveVariants.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        for zone in zones {
            let zoneTopic = TopicCondition.subscribed(TimeZoneTopic.name(zone))
            for request in base.requests {
                guard let variant = variants[request.variantKey], let audience = audience(of: request.target) else { continue }
                var zonedRequest = self.request(campaign, variant, .condition(TopicCondition.and(audience, zoneTopic).description),
                                                campaignID: campaignID, sendTime: sendTime)
                zonedRequest.zone = zone
                zoned.requests.append(zonedRequest)
            }
        }
        return zoned
    }

    /// A topic or condition target as a condition.
    static func audience(of target: Target) -> TopicCondition? {
        switch target {
        case .topic(let topic): .subscribed(topic)
        case .condition(let text): try? TopicCondition.parse(text)
        default: nil
        }
    }
}

/// The topic of each time zone's devices, for recipient time on topics: `tz.` and the IANA
/// name with `/` as `.` and `+` as `%2B` (FCM topic names allow letters, digits and `-_.~%`):
/// `Asia/Tehran` → `tz.Asia.Tehran`, `Etc/GMT+12` → `tz.Etc.GMT%2B12`. Herald subscribes registered
/// devices to theirs (`POST /api/v1/time-zone-topics`); an app may subscribe itself by the same rule.
public enum TimeZoneTopic {
    public static func name(_ zone: String) -> String {
        "tz." + zone.replacingOccurrences(of: "/", with: ".").replacingOccurrences(of: "+", with: "%2B")
    }
}
