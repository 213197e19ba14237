import HeraldCore
import HeraldJSON
import Testing

/// The approval rules and the approver's diff, without a database.
@Suite struct ApprovalTests {
    @Test func submittingWaitsForApprovalOnlyFromNothingOrARejection() {
        #expect(ApprovalState.none.submitted == .awaiting)
        #expect(ApprovalState.rejected.submitted == .awaiting)
        #expect(ApprovalState.awaiting.submitted == nil)
        #expect(ApprovalState.approved.submitted == nil)
        #expect(ApprovalState.allCases.filter(\.isDecidable) == [.awaiting])
    }

    @Test func anEditAfterApprovalNeedsApprovalAgain() {
        #expect(ApprovalState.approved.afterContentEdit == .awaiting)
        #expect(ApprovalState.awaiting.afterContentEdit == .awaiting)
        #expect(ApprovalState.rejected.afterContentEdit == .rejected)
        #expect(ApprovalState.none.afterContentEdit == .none)
    }

    @Test func withApprovalsOnOnlyAnApprovedVersionIsSent() {
        for state in ApprovalState.allCases {
            #expect(state.allowsSending(required: false))
            #expect(state.allowsSending(required: true) == (state == .approved), "\(state)")
        }
    }

    @Test func nobodyDecidesOnTheirOwnChange() {
        #expect(ApprovalState.selfApprovalRefusal(approver: "user:ana@example.com", lastEditor: "user:ana@example.com") != nil)
        #expect(ApprovalState.selfApprovalRefusal(approver: "user:bo@example.com", lastEditor: "user:ana@example.com") == nil)
        // A key named like a person is someone else.
        #expect(ApprovalState.selfApprovalRefusal(approver: "api_key:ana@example.com", lastEditor: "user:ana@example.com") == nil)
        #expect(ApprovalState.selfApprovalRefusal(approver: "user:ana@example.com", lastEditor: nil) == nil)
    }

    @Test func theDiffNamesEachChangedFieldWithItsValueBeforeAndAfter() {
        let approved: JSON = ["name": "Sale", "notification": ["title": "Sale", "body": "20% off"], "topics": ["news"],
                              "options": ["priority": "high"]]
        let edited: JSON = ["name": "Sale", "notification": ["title": "Big sale", "body": "20% off"], "topics": ["news", "offers"],
                            "data": ["screen": "sale"]]
        #expect(CampaignDiff.changes(from: approved, to: edited) == [
            .init(path: "data.screen", old: nil, new: "sale"),
            .init(path: "notification.title", old: "Sale", new: "Big sale"),
            .init(path: "options.priority", old: "high", new: nil),
            .init(path: "topics", old: ["news"], new: ["news", "offers"]),
        ])
        // As the approver reads them on the page: strings bare, the rest as JSON.
        let topics = CampaignDiff.changes(from: approved, to: edited).last
        #expect(topics?.before == #"["news"]"# && topics?.after == #"["news","offers"]"#)
        #expect(CampaignDiff.changes(from: approved, to: edited).first?.before == nil)
        #expect(CampaignDiff.changes(from: edited, to: edited).isEmpty)
        // Nothing approved yet: every field is new.
        #expect(CampaignDiff.changes(from: nil, to: ["name": "A", "notification": ["title": "T"]]).map(\.path) == ["name", "notification.title"])
    }
}
