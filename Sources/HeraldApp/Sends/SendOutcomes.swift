import HeraldCore

/// A one-call send as accepted: its run, the campaign it is a run of, and what became of each
/// recipient at once (a request waiting to be sent, refused before sending, or skipped).
public struct AcceptedSend: Sendable, Equatable {
    public enum Outcome: Sendable, Equatable {
        case pending
        /// Refused before sending (the message over FCM's size for this device, or no Live Activity to update), with the reason.
        case failed(String)
        /// No request: the holdout, the control group or a category the device silenced.
        case skipped(DevicePlanner.Skip)
    }

    public struct Recipient: Sendable, Equatable {
        public var token: String
        public var kind: DeviceKind
        /// The variant it gets; nil when skipped.
        public var variant: String?
        public var outcome: Outcome
    }

    public var runID: RunID
    public var campaignID: CampaignID
    public var recipients: [Recipient]
}

/// A one-call send as it stands: its run's status and each request's outcome.
public struct SendProgress: Sendable, Equatable {
    public struct Request: Sendable, Equatable {
        public var target: DeliveryRecord.Target
        public var variant: String
        public var status: DeliveryStatus
        public var attempts: Int
        public var errorCode: String?
        public var error: String?
        /// FCM's name of the message it sent.
        public var messageName: String?
    }

    public var id: RunID
    public var campaignID: CampaignID
    public var status: RunStatus
    public var planned: Int
    public var requests: [Request]
}
