import HeraldCore
import Testing

/// The rules of each campaign state, and the pause and resume transitions between them.
@Suite struct CampaignStatusTests {
    @Test func onlyScheduledAndSendingCampaignsCanBePaused() {
        #expect(CampaignStatus.pausable == [.scheduled, .sending])
        for status in CampaignStatus.allCases where status != .scheduled && status != .sending {
            #expect(!status.isPausable, "\(status)")
        }
    }

    @Test func aPausedCampaignResumesToWhatItWasAndNothingElseResumes() {
        #expect(CampaignStatus.paused.resumed(to: .sending) == .sending)
        #expect(CampaignStatus.paused.resumed(to: .scheduled) == .scheduled)
        // A pause can only have come from a pausable state; anything else stored is refused.
        #expect(CampaignStatus.paused.resumed(to: .draft) == nil)
        #expect(CampaignStatus.paused.resumed(to: .sent) == nil)
        #expect(CampaignStatus.paused.resumed(to: nil) == nil)
        for status in CampaignStatus.allCases where status != .paused {
            #expect(status.resumed(to: .sending) == nil, "\(status)")
        }
    }

    @Test func aPausedCampaignCanBeCancelledButNotEditedOrDeleted() {
        #expect(CampaignStatus.paused.isCancellable)
        #expect(!CampaignStatus.paused.isEditable)
        #expect(!CampaignStatus.paused.isSchedulable)
        #expect(!CampaignStatus.paused.isDeletable)
        #expect(CampaignStatus.cancellable == [.draft, .scheduled, .sending, .paused])
    }

    @Test func theLifeOrderPutsAPauseBesideSending() {
        #expect(CampaignStatus.allCases.sorted() == [.draft, .scheduled, .paused, .sending, .sent, .nothingSent, .partiallyFailed, .failed, .cancelled])
    }

    @Test func anExpiredDeliveryIsFinalAndWasNeverAnswered() {
        #expect(!DeliveryStatus.open.contains(.expired))
        #expect(!DeliveryStatus.answered.contains(.expired))
        #expect(DeliveryStatus(rawValue: "expired") == .expired)
    }

    @Test func aRunOrCampaignClosesByItsCounts() {
        #expect(CampaignStatus.afterRun(sent: 3, failed: 0) == .sent)
        #expect(CampaignStatus.afterRun(sent: 0, failed: 2) == .failed)
        #expect(CampaignStatus.afterRun(sent: 1, failed: 1) == .partiallyFailed)
        // A run that reached nobody (all capped, held, or an empty audience) is not "sent".
        #expect(CampaignStatus.afterRun(sent: 0, failed: 0) == .nothingSent)
        #expect(RunStatus.closed(sent: 0, failed: 0) == .nothingSent)
        #expect(RunStatus.closed(sent: 1, failed: 1) == .partiallyFailed)
    }
}
