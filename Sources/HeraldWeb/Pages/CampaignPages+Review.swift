import Foundation
import HeraldApp
import HeraldCore
import HeraldHTTP

/// The review step and the campaign actions: schedule, publish, cancel, delete, duplicate, test.
/// A refused action shows the review page again with the reason.
extension CampaignPages {
    func review(_ context: RequestContext) throws -> HTTPResponse {
        try reviewPage(try campaigns.get(try context.campaignID()), context: context)
    }

    func reviewPage(_ record: CampaignRecord, context: RequestContext, tests: [TestSend.Result]? = nil, testVariant: String? = nil,
                    testError: String? = nil, tokens: String = "", actionError: String? = nil, status: Int = 200) throws -> HTTPResponse {
        let words = context.words
        let now = Date()
        let plan = try campaigns.plan(record, now: now)
        let spec = try record.spec()
        let role = context.viewer?.role ?? .viewer
        let when = Self.sendingTime(spec, now: now, words: words)
        let summaries = try segments.summaries(of: [record])
        let targets = words.targetText(spec.audience, segments: summaries)
        let canPublish = record.status == .draft && role.may(.publish) && record.approval.state.allowsSending(required: campaigns.approvalsOn)
        let (device, sample) = try previewSample(record, spec: spec, context: context)
        let labels = record.status == .draft || record.status == .scheduled ? ReviewView.LabelNote(try campaigns.labelForecast(record), words: words) : nil
        let activityReach = try campaigns.liveActivityReach(of: spec)
        let reach = try reachLine(record, spec: spec, summaries: summaries, activityReach: activityReach, words: words)
        return pages.page(ReviewView(
            chrome: chrome(context, title: words.text("review.title", record.name)), campaign: CampaignRow(record, viewer: context.viewer, segments: summaries, words: words),
            variants: ReviewView.variants(spec, device: device, words: words), sample: sample, requests: ReviewView.requests(plan, words: words), warnings: plan.notes.map(words.planWarning),
            labels: labels, reach: reach,
            liveActivityReach: activityReach.map { words.text("review.live_activity_reach", words.number($0)) },
            holdout: spec.holdoutPercent, hasHoldout: spec.holdoutPercent > 0,
            holdoutText: words.text("review.holdout", words.percent(whole: spec.holdoutPercent)),
            actions: ReviewView.Actions(
                scheduleLabel: canPublish ? when.scheduled.map { words.text("review.schedule_for", $0.local ?? $0.text) } : nil,
                sendNowLabel: canPublish ? words.text("review.send_now_to", targets) : nil,
                sendNowQuestion: Self.sendNowQuestion(record.name, targets, words: words),
                nextRun: record.status == .draft || record.status == .scheduled ? when.scheduled : nil,
                scheduleProblem: record.status == .draft ? when.problem : nil,
                canCancel: record.status.isCancellable && role.may(.cancel),
                canPause: record.status.isPausable && role.may(.pause),
                canResume: record.status == .paused && role.may(.resume)),
            approval: try approvalPanel(record, context: context),
            canTest: role.may(.test) && sendingConfigured, sendingConfigured: sendingConfigured, tokens: tokens,
            tokensLabel: words.text("review.test.tokens", words.number(CampaignLimits.testTokens)),
            variantKeys: spec.effectiveVariants.map { Choice($0.key, selected: $0.key == (testVariant ?? spec.effectiveVariants[0].key)) },
            actionError: actionError, testError: testError,
            tests: tests?.map { ReviewView.TestResult($0, words: words) } ?? [], hasTests: !(tests ?? []).isEmpty), status: status)
    }

    /// Samples a personalised campaign to devices is previewed for: the first three devices of
    /// its audience (`?sample=` picks one), or the variables' defaults when it has none yet.
    func previewSample(_ record: CampaignRecord, spec: CampaignSpec, context: RequestContext) throws -> (HeraldCore.Device?, ReviewView.Sample?) {
        let words = context.words
        guard spec.audience.isPerDevice, spec.effectiveVariants.contains(where: \.isPersonalized) else { return (nil, nil) }
        let devices = try campaigns.sampleDevices(of: spec, limit: 3).map(\.device)
        guard !devices.isEmpty else {
            return (nil, ReviewView.Sample(text: words.text("review.sample.defaults"), choices: [], hasChoices: false))
        }
        let asked = context.request.queryItems.first { $0.0 == "sample" }.flatMap { Int($0.1) } ?? 0
        let chosen = devices.indices.contains(asked) ? asked : 0
        func label(_ device: HeraldCore.Device) -> String { device.token.count > 16 ? device.token.prefix(16) + "…" : device.token }
        let device = devices[chosen]
        return (device, ReviewView.Sample(
            text: words.text("review.sample.device", words.isolate(label(device)), words.isolate(device.language ?? "—")),
            choices: devices.enumerated().map { index, other in
                .init(label: label(other), href: "/campaigns/\(record.id)/review?sample=\(index)#preview-title", current: index == chosen)
            },
            hasChoices: devices.count > 1))
    }

    /// The approval panel when approvals are on; nil otherwise.
    func approvalPanel(_ record: CampaignRecord, context: RequestContext) throws -> ReviewView.ApprovalPanel? {
        let words = context.words
        guard campaigns.approvalsOn else { return nil }
        let role = context.viewer?.role ?? .viewer
        let (_, changes) = try campaigns.approvalDiff(record.id)
        let state = record.approval.state
        let problem = state.isDecidable && role.may(.approve)
            ? ApprovalState.selfApprovalRefusal(approver: context.actor.attribution.identity, lastEditor: record.updatedBy?.identity)
                .map { _ in words.text("approval.own_change") }
            : nil
        return ReviewView.ApprovalPanel(
            stateText: words.approvalText(state), runsHeld: record.approval.runsHeld(status: record.status, version: record.version),
            comment: record.approval.comment,
            decision: record.approval.decidedBy.map { identity in
                // "Approved by ana@…" or "Rejected by …"; a decision kept from before this column says only who.
                let who = words.isolate(Self.identityText(identity))
                switch record.approval.decision {
                case .approved?: return words.text("approval.approved_by", who)
                case .rejected?: return words.text("approval.rejected_by", who)
                default: return words.text("approval.last_decision_by") + " " + who
                }
            },
            changes: changes.map { .init(path: $0.path, before: $0.before ?? "—", after: $0.after ?? "—") }, hasChanges: !changes.isEmpty,
            sinceVersion: record.approval.approvedVersion.map { words.text("approval.since_version", words.number($0)) }
                ?? words.text("approval.since_nothing"),
            canSubmit: state.submitted != nil && record.status.isEditable && role.may(.submit),
            canDecide: state.isDecidable && role.may(.approve) && problem == nil, decideProblem: problem)
    }

    func submitForApproval(_ context: RequestContext) throws -> HTTPResponse {
        try act(context, notice: .submitted, then: .review) { id, version in
            try campaigns.submitForApproval(id, expectedVersion: version, by: context.actor)
        }
    }

    func approve(_ context: RequestContext) throws -> HTTPResponse {
        try act(context, notice: .approved, then: .review) { id, version in
            try campaigns.decideApproval(id, expectedVersion: version, approve: true, comment: context.form.value("comment"), by: context.actor)
        }
    }

    func reject(_ context: RequestContext) throws -> HTTPResponse {
        try act(context, notice: .rejected, then: .review) { id, version in
            try campaigns.decideApproval(id, expectedVersion: version, approve: false, comment: context.form.value("comment"), by: context.actor)
        }
    }

    /// When Schedule would send: its time in the campaign's zone (and as an instant for the
    /// viewer's clock), or why it cannot; nil time without a wall-clock schedule (it would send now).
    static func sendingTime(_ spec: CampaignSpec, now: Date, words: Localized) -> (scheduled: ReviewView.NextRun?, problem: String?) {
        guard let schedule = spec.schedule, schedule != .now else { return (nil, nil) }
        switch Arming.firstRun(of: spec, now: now) {
        case .success(let date):
            let zone = scheduleZone(schedule)
            guard let recipientTime = spec.delivery.recipientTime else {
                return (ReviewView.NextRun(text: words.dateTime(date, in: zone), utc: words.dateTime(date, in: .gmt),
                                           iso: ISO8601DateFormatter().string(from: date), local: nil, lastWave: nil), nil)
            }
            // The run is the schedule's local time in each recipient's zone: said as such, with
            // its first and last waves in the schedule's zone beside it.
            let span = RecipientTime.waveSpan(of: schedule, timeZones: spec.audience.isPerDevice ? nil : recipientTime.timeZones, firstRun: date)
            let local = WallClock.instant(of: RecipientTime.localTime(ofRunAt: date, schedule: schedule), in: .gmt)
            return (ReviewView.NextRun(text: words.dateTime(span.first, in: zone), utc: words.dateTime(span.first, in: .gmt),
                                       iso: ISO8601DateFormatter().string(from: span.first),
                                       local: words.dateTime(local, in: .gmt, shownAs: words.text("schedule.recipient_zone")),
                                       lastWave: words.dateTime(span.last, in: zone)), nil)
        case .failure(let errors):
            return (nil, words.text("review.cannot_schedule", words.fieldErrors(errors.errors)))
        }
    }

    static func sendNowQuestion(_ name: String, _ targets: String, words: Localized) -> String {
        words.text("review.send_now_question", name, targets)
    }

    /// Schedule arms a campaign for its time; one without a time would be sent at once, so that
    /// is said and confirmed first, never done by surprise.
    func schedule(_ context: RequestContext) throws -> HTTPResponse {
        let words = context.words
        let record = try campaigns.get(try context.campaignID())
        let spec = try record.spec()
        if Self.sendingTime(spec, now: Date(), words: words).scheduled == nil, spec.schedule == nil || spec.schedule == .now {
            let targets = words.targetText(spec.audience, segments: try segments.summaries(of: [record]))
            if let page = ConfirmView.unlessConfirmed(
                context, pages: pages, heading: words.text("review.no_schedule.heading"),
                text: words.text("review.no_schedule.text", Self.sendNowQuestion(record.name, targets, words: words)),
                confirmLabel: words.text("review.send_now_to", targets), back: "/campaigns/\(record.id)/review") {
                return page
            }
        }
        return try act(context, notice: .scheduled, then: .review) { id, version in
            try campaigns.schedule(id, expectedVersion: version, by: context.actor, now: Date())
        }
    }

    func publish(_ context: RequestContext) throws -> HTTPResponse {
        let words = context.words
        // The campaign is read here only to ask; once confirmed, the action reads it once, in the service.
        if !ConfirmView.isConfirmed(context) {
            let record = try campaigns.get(try context.campaignID())
            let summaries = try segments.summaries(of: [record])
            let targets = (try? record.spec()).map { words.targetText($0.audience, segments: summaries) } ?? words.text("review.its_audience")
            return ConfirmView.page(context, pages: pages, heading: words.text("review.send_now.heading"), text: Self.sendNowQuestion(record.name, targets, words: words),
                                    confirmLabel: words.text("review.send_now_to", targets), back: "/campaigns/\(record.id)/review")
        }
        return try act(context, notice: .published, then: .report) { id, version in
            try campaigns.publishNow(id, expectedVersion: version, by: context.actor, now: Date())
        }
    }

    func cancel(_ context: RequestContext) throws -> HTTPResponse {
        let words = context.words
        let back = AfterAction.back(context)
        if !ConfirmView.isConfirmed(context) {
            let record = try campaigns.get(try context.campaignID())
            return ConfirmView.page(context, pages: pages, heading: words.text("review.cancel.heading"), text: CampaignRow.cancelQuestion(record.name, words: words),
                                    confirmLabel: words.text("common.cancel_campaign"), back: back.path(record.id))
        }
        return try act(context, notice: .cancelled, then: back) { id, version in
            try campaigns.cancel(id, expectedVersion: version, by: context.actor)
        }
    }

    /// Pausing holds the rest back and resuming lets it go; each asked first, from the list or the review page.
    func pause(_ context: RequestContext) throws -> HTTPResponse {
        try pauseOrResume(context, pausing: true)
    }

    func resume(_ context: RequestContext) throws -> HTTPResponse {
        try pauseOrResume(context, pausing: false)
    }

    func pauseOrResume(_ context: RequestContext, pausing: Bool) throws -> HTTPResponse {
        let words = context.words
        let back = AfterAction.back(context)
        if !ConfirmView.isConfirmed(context) {
            let record = try campaigns.get(try context.campaignID())
            return ConfirmView.page(
                context, pages: pages, heading: words.text(pausing ? "confirm.pause.heading" : "confirm.resume.heading"),
                text: pausing ? CampaignRow.pauseQuestion(record.name, words: words) : CampaignRow.resumeQuestion(record.name, words: words),
                confirmLabel: words.text(pausing ? "common.pause_campaign" : "common.resume_campaign"), danger: false, back: back.path(record.id))
        }
        return try act(context, notice: pausing ? .paused : .resumed, then: back) { id, version in
            if pausing { return try campaigns.pause(id, expectedVersion: version, by: context.actor) }
            return try campaigns.resume(id, expectedVersion: version, by: context.actor)
        }
    }

    func delete(_ context: RequestContext) throws -> HTTPResponse {
        let words = context.words
        if !ConfirmView.isConfirmed(context) {
            let record = try campaigns.get(try context.campaignID())
            return ConfirmView.page(context, pages: pages, heading: words.text("review.delete.heading"), text: CampaignRow.deleteQuestion(record.name, words: words),
                                    confirmLabel: words.text("list.delete_draft"), back: "/campaigns")
        }
        return try act(context, notice: .deleted, then: .list) { id, version in
            try campaigns.delete(id, expectedVersion: version, by: context.actor)
            return nil
        }
    }

    /// The A/B test's winner to the rest of the audience, asked first (it cannot be taken back).
    func sendWinner(_ context: RequestContext) throws -> HTTPResponse {
        let words = context.words
        let variant = context.form.value("variant") ?? ""
        if !ConfirmView.isConfirmed(context) {
            let record = try campaigns.get(try context.campaignID())
            return ConfirmView.page(
                context, pages: pages, heading: words.text("review.winner.heading", variant), text: Self.winnerQuestion(record.name, variant, words: words),
                confirmLabel: words.text("review.winner.confirm", variant), danger: false, back: "/campaigns/\(record.id)/report")
        }
        return try perform(context, notice: .winnerSent, then: .report) { id in
            try campaigns.sendWinner(id, variantKey: variant, by: context.actor, now: Date())
        }
    }

    static func winnerQuestion(_ name: String, _ variant: String, words: Localized) -> String {
        words.text("review.winner.question", variant, name)
    }

    /// Runs one action on the campaign at the form's version. A form without its version is
    /// refused as such, not taken as version 0 (which would read "someone saved since").
    func act(_ context: RequestContext, notice: Notice, then: AfterAction,
             _ action: (_ id: CampaignID, _ version: Int) throws -> CampaignRecord?) throws -> HTTPResponse {
        let words = context.words
        guard let version = Int(context.form.value("version") ?? "") else {
            return try reviewPage(try campaigns.get(try context.campaignID()), context: context,
                                  actionError: words.text("review.error.no_version"), status: 422)
        }
        return try perform(context, notice: notice, then: then) { id in try action(id, version) }
    }

    /// Runs one action on the campaign, then redirects with a notice; a refusal shows the review
    /// page with the reason.
    func perform(_ context: RequestContext, notice: Notice, then: AfterAction,
                 _ action: (_ id: CampaignID) throws -> CampaignRecord?) throws -> HTTPResponse {
        let words = context.words
        let id = try context.campaignID()
        let actionError: String
        let status: Int
        do {
            let record = try action(id)
            // A campaign gone with the action (deleted) has no page to go back to.
            return PageRenderer.redirect(to: "\((record == nil ? .list : then).path(id))?notice=\(notice.rawValue)")
        } catch AppError.versionMismatch(let current, _) {
            (actionError, status) = (words.text("review.error.changed", words.number(current)), 409)
        } catch AppError.conflict(let code, _, let detail, let current) {
            let state = current.map { words.text("review.error.state", words.statusText($0).lowercased()) } ?? ""
            (actionError, status) = (words.text("review.error.not_done", words.problemDetail(code: code, detail)) + state, 409)
        } catch AppError.invalid(let errors, let title) {
            (actionError, status) = (words.text("review.error.invalid", words.problemTitle(code: "validation_failed", title),
                                                    words.fieldErrors(errors.errors)), 422)
        } catch AppError.refused(_, let title, let detail) {
            (actionError, status) = ("\(title): \(detail)", 422)
        }
        return try reviewPage(try campaigns.get(id), context: context, actionError: actionError, status: status)
    }

    func duplicate(_ context: RequestContext) throws -> HTTPResponse {
        let copy = try campaigns.duplicate(try context.campaignID(), by: context.actor)
        return PageRenderer.redirect(to: "/campaigns/\(copy.id)/edit?notice=\(Notice.duplicated.rawValue)")
    }

    /// Sends the chosen variant to the typed tokens (one per line), up to 20.
    func test(_ context: RequestContext) throws -> HTTPResponse {
        let words = context.words
        let id = try context.campaignID()
        let typed = context.form.value("tokens") ?? ""
        // One token per line (browsers send CRLF, one Character in Swift): a space inside a line is
        // part of what was typed, for the token check to refuse, never a second token.
        let tokens = typed.split(whereSeparator: \.isNewline).map { String($0).trimmingSpaces }.filter { !$0.isEmpty }
        let key = context.form.value("variant").flatMap { $0.isEmpty ? nil : $0 }
        do {
            let (record, _, results) = try campaigns.testSend(id, variantKey: key, tokens: tokens, by: context.actor, now: Date())
            return try reviewPage(record, context: context, tests: results, testVariant: key, tokens: typed)
        } catch AppError.sendingNotConfigured {
            return try reviewPage(try campaigns.get(id), context: context, testVariant: key, testError: words.text("review.test.not_configured"),
                                  tokens: typed, status: 503)
        } catch AppError.invalid(let errors, _) {
            let message = words.fieldErrors(errors.errors) + words.text("sentence.end")
            return try reviewPage(try campaigns.get(id), context: context, testVariant: key, testError: message, tokens: typed, status: 422)
        }
    }

    /// "Under the contact policy: about 180 of its 300 devices …", for a campaign to devices the
    /// caps or the control group change; nil otherwise. A Live Activity's audience is its devices
    /// with an activity token (`activityReach`).
    func reachLine(_ record: CampaignRecord, spec: CampaignSpec, summaries: [SegmentID: SegmentSummary], activityReach: Int?,
                   words: Localized) throws -> String? {
        var audience: Int
        switch spec.audience {
        case .segment: guard let devices = record.segmentID.flatMap({ summaries[$0]?.devices }) else { return nil }; audience = devices
        case .tokens(let tokens): audience = tokens.count
        case .topics, .condition: return try contactPolicy.leavesTopicsUncapped(spec) ? words.text("review.contact_topics") : nil
        }
        if let activityReach { audience = activityReach }
        return try contactPolicy.reachForecast(spec, campaignID: record.id, audience: audience).map { Self.contactReachText($0, words: words) }
    }

    /// "Under the contact policy: about 180 of its 300 devices get it (…)".
    static func contactReachText(_ forecast: ReachForecast, words: Localized) -> String {
        words.text("review.contact_reach", words.number(forecast.expected), words.number(forecast.audience),
                       words.number(forecast.controlGroup), words.number(forecast.capped))
    }
}

/// Where a campaign page's action leads once done: the campaign's review or report page, or the list.
enum AfterAction: Sendable {
    case review, report, list

    /// The page a confirmation's form came from: the list's own buttons say `back=list`.
    static func back(_ context: RequestContext) -> AfterAction {
        context.form.value("back") == "list" ? .list : .review
    }

    func path(_ id: CampaignID) -> String {
        switch self {
        case .review: "/campaigns/\(id)/review"
        case .report: "/campaigns/\(id)/report"
        case .list: "/campaigns"
        }
    }
}
