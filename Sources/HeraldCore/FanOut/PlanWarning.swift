import FCMMessage

/// Why a plan may surprise its operator, as a value the pages can say in any language; `message`
/// is the English the API and the stored runs carry (`FanOutPlan.warnings`).
public enum PlanWarning: Sendable, Equatable {
    /// More topics than one condition takes: a device on topics of two conditions gets it twice.
    case splitCondition(topics: Int, conditions: Int)
    /// A variant's weight is below one audience bucket.
    case noBucket(variant: String, buckets: Int)
    /// A winner was asked for by a key the campaign does not have.
    case unknownVariant(String)
    /// The test covered every bucket: nobody is left for the winner.
    case wholeAudienceTested
    /// The condition already names as many topics as FCM allows, leaving none for a bucket.
    case noRoomForBuckets(maximumTopics: Int)
    /// Recipient time on topics with no time zone to send in: none listed and no registered device has one.
    case noTimeZones

    public var message: String {
        switch self {
        case .splitCondition(let topics, let conditions):
            "\(topics) topics exceed FCM's \(TopicCondition.maximumTopics) topics per condition, so they are sent as \(conditions) conditions; a device subscribed to topics in two of them receives the message more than once"
        case .noBucket(let variant, let buckets):
            "variant \(variant) gets no audience bucket: its weight is below one bucket of \(buckets)"
        case .unknownVariant(let key):
            "the campaign has no variant \(key)"
        case .wholeAudienceTested:
            "the test reached the whole audience: no audience bucket is left to send the winner to"
        case .noRoomForBuckets(let maximumTopics):
            "the condition leaves no room for audience buckets (at most \(maximumTopics) topics with A/B); nothing planned"
        case .noTimeZones:
            "recipient time on topics needs time zones: none is listed in recipient_time.time_zones and no registered device has one; nothing planned"
        }
    }
}

extension FanOutPlan {
    /// Records `warning` both as a value (`notes`) and as the English the API carries (`warnings`).
    mutating func warn(_ warning: PlanWarning) {
        notes.append(warning)
        warnings.append(warning.message)
    }
}
