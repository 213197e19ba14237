import FCMMessage
import HeraldApp
import HeraldCore

/// A campaign as the list, review and report pages show it, with what the viewer may do to it.
struct CampaignRow: Sendable {
    let id: String
    let name: String
    let status: String
    let statusText: String
    /// "Awaiting approval", "Approved", "Rejected"; nil for a campaign never submitted.
    let approvalText: String?
    let approvalState: String
    let schedule: String
    let targets: String
    let updated: String
    let updatedISO: String
    let author: String
    /// Who wrote the current version ("my scripts (API key)"), for "Last change … by".
    let changedBy: String
    let version: Int
    /// The version in the page's digits.
    let versionText: String
    let editable: Bool
    let cancellable: Bool
    let pausable: Bool
    /// The list's row holds at most four buttons: a draft is deleted, not cancelled, and has no
    /// report yet; pausing is on the review page.
    let listCancellable: Bool
    /// Topics and a condition are written as code; a segment's name and reach, or a count of
    /// devices, are words of the page's language.
    let targetsAreCode: Bool
    /// On the report, a segment campaign's reach when its last run was planned, when it differs from now.
    var plannedReach: String? = nil
    let reportable: Bool
    let resumable: Bool
    let deletable: Bool
    let canDuplicate: Bool
    /// "Next: Fri 20 Mar 2026, 09:30 Asia/Tehran" or "Sent Mon 23 Nov 2026, 21:10 UTC"; "—" otherwise.
    var when = "—"
    /// "12 requests sent · 1 failed"; "—" before any run.
    var results = "—"
    let cancelQuestion: String
    let pauseQuestion: String
    let resumeQuestion: String
    let deleteQuestion: String

    /// The list's row with what has been sent so far.
    init(_ record: CampaignRecord, viewer: Viewer?, summary: CampaignSummary?, segments: [SegmentID: SegmentSummary] = [:], words: Localized) {
        self.init(record, viewer: viewer, segments: segments, words: words)
        guard let summary else { return }
        if when == "—", let finished = summary.lastFinishedAt { when = words.text("list.sent_at", words.shortTime(finished)) }
        results = words.plural("list.requests_sent", count: summary.requestsSent)
            + (summary.requestsFailed > 0 ? words.text("list.requests_failed", words.number(summary.requestsFailed)) : "")
            + (summary.opens > 0 ? words.plural("list.opens", count: summary.opens) : "")
            + (summary.conversions > 0 ? words.plural("list.conversions", count: summary.conversions) : "")
    }

    static func cancelQuestion(_ name: String, words: Localized) -> String {
        words.text("list.cancel_question", name)
    }

    static func pauseQuestion(_ name: String, words: Localized) -> String {
        words.text("list.pause_question", name)
    }

    static func resumeQuestion(_ name: String, words: Localized) -> String {
        words.text("list.resume_question", name)
    }

    static func deleteQuestion(_ name: String, words: Localized) -> String {
        words.text("list.delete_question", name)
    }

    /// `segments`: the summaries of the segments campaigns name (`SegmentService.summaries(of:)`).
    init(_ record: CampaignRecord, viewer: Viewer?, segments: [SegmentID: SegmentSummary] = [:], words: Localized) {
        let role = viewer?.role ?? .viewer
        // A stored campaign the rules no longer accept still lists, with dashes for what cannot be read.
        let spec = try? record.spec()
        id = record.id.description
        name = record.name
        status = record.status.rawValue
        statusText = words.statusText(record.status)
        approvalText = record.approval.state == .none ? nil : words.approvalText(record.approval.state)
        approvalState = record.approval.state.rawValue
        schedule = spec.map { words.scheduleText(of: $0) } ?? "—"
        targets = spec.map { words.targetText($0.audience, segments: segments) } ?? "—"
        targetsAreCode = spec.map { !$0.audience.isPerDevice } ?? true
        updated = words.shortTime(record.updatedAt)
        updatedISO = RFC3339.utc(secondsSince1970: record.updatedAt.timeIntervalSince1970)
        author = record.author ?? "API"
        changedBy = record.updatedBy?.description ?? author
        version = record.version
        versionText = words.number(record.version)
        editable = record.status.isEditable && role.may(.edit)
        cancellable = record.status.isCancellable && role.may(.cancel)
        pausable = record.status.isPausable && role.may(.pause)
        listCancellable = cancellable && record.status != .draft
        reportable = record.status != .draft
        resumable = record.status == .paused && role.may(.resume)
        deletable = record.status.isDeletable && role.may(.delete)
        canDuplicate = role.may(.duplicate)
        cancelQuestion = Self.cancelQuestion(record.name, words: words)
        pauseQuestion = Self.pauseQuestion(record.name, words: words)
        resumeQuestion = Self.resumeQuestion(record.name, words: words)
        if let next = record.nextRunAt, record.status == .scheduled {
            let iso = RFC3339.utc(secondsSince1970: next.timeIntervalSince1970)
            when = words.text("list.next_at", spec.flatMap { words.nextRunText(iso, of: $0) } ?? words.shortTime(iso))
        }
        deleteQuestion = Self.deleteQuestion(record.name, words: words)
    }
}
