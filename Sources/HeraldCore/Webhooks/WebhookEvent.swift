/// What Herald tells a company's systems, one webhook event type each. The raw values are the
/// documented names receivers switch on: they never change once published.
public enum WebhookEventType: String, Sendable, CaseIterable {
    case campaignScheduled = "campaign.scheduled"
    /// A run of the campaign began sending (a recurring campaign starts once per occurrence).
    case campaignStarted = "campaign.started"
    /// The campaign's last run closed with everything sent (or some of it: see `run.finished`).
    case campaignFinished = "campaign.finished"
    /// The campaign's last run closed with nothing sent, or it could not be planned at all.
    case campaignFailed = "campaign.failed"
    /// The campaign's last run reached nobody and failed nothing: every device was capped, held
    /// by a quiet category or the control group, or the audience had no one in it.
    case campaignNothingSent = "campaign.nothing_sent"
    case campaignCancelled = "campaign.cancelled"
    case approvalRequested = "approval.requested"
    case approvalGiven = "approval.given"
    case approvalRefused = "approval.refused"
    /// A run closed: its counts of requests sent and failed.
    case runFinished = "run.finished"
    /// FCM said a device's token is dead; Herald sends it nothing until it registers anew.
    case deviceInvalidated = "device.invalidated"
    case importFinished = "import.finished"
    /// A device entered a journey.
    case journeyEntered = "journey.entered"
    /// A device left a journey: it finished, reached the goal, was stopped, or is gone.
    case journeyExited = "journey.exited"
    /// A device reported a journey's goal event while in it (it also leaves: `journey.exited`).
    case journeyGoalReached = "journey.goal_reached"

}

/// Whether a delivery of an event to one endpoint is still being tried, reached the receiver,
/// or was given up after the last retry (`dead`, until someone redelivers it).
public enum WebhookDeliveryStatus: String, Sendable, CaseIterable {
    case pending
    case delivered
    case dead
}
