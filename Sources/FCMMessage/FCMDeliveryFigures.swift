/// Every figure the FCM Data API gives for a day, Android app and analytics label
/// (`GoogleFirebaseFcmDataV1beta1Data`), by the object of percents FCM puts it in, in the order
/// a report lists them. A figure FCM leaves out of an answer is 0.
public enum FCMDeliveryFigureGroup: String, Sendable, CaseIterable {
    /// What became of the messages: mutually exclusive, of the messages accepted.
    case messageOutcomePercents
    /// How the delivered ones went: not exclusive (a message may be delayed for several reasons).
    case deliveryPerformancePercents
    /// General insights: messages whose priority FCM lowered.
    case messageInsightPercents
    /// Notifications Google Play services showed on the app's behalf: of the notifications accepted.
    case proxyNotificationInsightPercents

    /// FCM's names of the figures in the group.
    public var figures: [String] {
        switch self {
        case .messageOutcomePercents:
            ["delivered", "pending", "collapsed", "droppedTooManyPendingMessages", "droppedAppForceStopped", "droppedDeviceInactive",
             "droppedTtlExpired"]
        case .deliveryPerformancePercents:
            ["deliveredNoDelay", "delayedDeviceOffline", "delayedDeviceDoze", "delayedMessageThrottled", "delayedUserStopped"]
        case .messageInsightPercents: ["priorityLowered"]
        case .proxyNotificationInsightPercents:
            ["proxied", "failed", "skippedNotThrottled", "skippedOptedOut", "skippedUnconfigured", "skippedUnsupported"]
        }
    }

    /// Whether its percents are of the notifications accepted (else of the messages accepted).
    public var ofNotifications: Bool { self == .proxyNotificationInsightPercents }
}
