/// The outcomes the FCM Data API's `messageOutcomePercents` names, in the order a report lists them.
public enum FCMDeliveryOutcome: String, Sendable, CaseIterable {
    case delivered
    /// The device was offline at the end of the day (as FCM counts days); not dropped.
    case pending
    /// Replaced by a newer message with the same collapse key.
    case collapsed
    case droppedTooManyPendingMessages
    case droppedAppForceStopped
    case droppedDeviceInactive
}
