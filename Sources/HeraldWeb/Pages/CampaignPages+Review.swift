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
        let plan = try campaigns.plan(record, now: Date())
        let spec = try record.spec()
        let role = context.viewer?.role ?? .viewer
        return pages.page(ReviewView(
            chrome: chrome(context, title: "Review: \(record.name)"), campaign: CampaignRow(record, viewer: context.viewer),
            variants: ReviewView.variants(spec), requests: ReviewView.requests(plan), warnings: plan.warnings,
            holdout: spec.holdoutPercent, hasHoldout: spec.holdoutPercent > 0,
            canSchedule: record.status.isSchedulable && role >= .publisher, canCancel: record.status.isCancellable && role >= .publisher,
            canTest: role >= .editor && sendingConfigured, sendingConfigured: sendingConfigured, tokens: tokens,
            variantKeys: spec.effectiveVariants.map(\.key), actionError: actionError, testError: testError,
            tests: tests?.map(ReviewView.TestResult.init) ?? []), status: status)
    }

    func schedule(_ context: RequestContext) throws -> HTTPResponse {
        try act(context, notice: .scheduled, then: "review") { id, version in
            try campaigns.schedule(id, expectedVersion: version, by: context.actor, now: Date())
        }
    }

    func publish(_ context: RequestContext) throws -> HTTPResponse {
        try act(context, notice: .published, then: "report") { id, version in
            try campaigns.publishNow(id, expectedVersion: version, by: context.actor, now: Date())
        }
    }

    func cancel(_ context: RequestContext) throws -> HTTPResponse {
        try act(context, notice: .cancelled, then: context.form.value("back") == "list" ? "list" : "review") { id, version in
            try campaigns.cancel(id, expectedVersion: version, by: context.actor)
        }
    }

    func delete(_ context: RequestContext) throws -> HTTPResponse {
        try act(context, notice: .deleted, then: "list") { id, version in
            try campaigns.delete(id, expectedVersion: version, by: context.actor)
            return nil
        }
    }

    /// Runs one action on the campaign at the form's version, then redirects with a notice; a
    /// refusal shows the review page with the reason.
    func act(_ context: RequestContext, notice: Notice, then: String,
             _ action: (_ id: CampaignID, _ version: Int) throws -> CampaignRecord?) throws -> HTTPResponse {
        let id = try context.campaignID()
        let version = Int(context.form.value("version") ?? "") ?? 0
        let actionError: String
        let status: Int
        do {
            let record = try action(id, version)
            let target = then == "list" || record == nil ? "/campaigns" : "/campaigns/\(id)/\(then)"
            return PageRenderer.redirect(to: "\(target)?notice=\(notice.rawValue)")
        } catch AppError.versionMismatch(let current) {
            (actionError, status) = ("Someone changed this campaign (now version \(current)) after you opened the page. Check it below, then try again.", 409)
        } catch AppError.conflict(_, _, let detail, let current) {
            let state = current.map { " This campaign is \(Self.statusText($0).lowercased())." } ?? ""
            (actionError, status) = ("Not done: \(detail)\(state)", 409)
        } catch AppError.invalid(let errors, let title) {
            (actionError, status) = ("\(title): " + errors.errors.map(\.message).joined(separator: "; ") + ".", 422)
        }
        return try reviewPage(try campaigns.get(id), context: context, actionError: actionError, status: status)
    }

    func duplicate(_ context: RequestContext) throws -> HTTPResponse {
        let copy = try campaigns.duplicate(try context.campaignID(), by: context.actor)
        return PageRenderer.redirect(to: "/campaigns/\(copy.id)/edit?notice=\(Notice.duplicated.rawValue)")
    }

    /// Sends the chosen variant to the typed tokens (one per line or comma-separated), up to 20.
    func test(_ context: RequestContext) throws -> HTTPResponse {
        let id = try context.campaignID()
        let typed = context.form.value("tokens") ?? ""
        // One token per line (browsers send CRLF, one Character in Swift): a space inside a line is
        // part of what was typed, for the token check to refuse, never a second token.
        let tokens = typed.split(whereSeparator: \.isNewline).map { String($0).trimmingSpaces }.filter { !$0.isEmpty }
        let key = context.form.value("variant").flatMap { $0.isEmpty ? nil : $0 }
        do {
            let (record, _, results) = try campaigns.testSend(id, variantKey: key, tokens: tokens, by: context.actor, now: Date())
            return try reviewPage(record, context: context, tests: results, tokens: typed)
        } catch AppError.sendingNotConfigured {
            return try reviewPage(try campaigns.get(id), context: context, testError: "Sending is not configured on this server.", tokens: typed, status: 503)
        } catch AppError.invalid(let errors, _) {
            let message = errors.errors.map(\.message).joined(separator: "; ") + "."
            return try reviewPage(try campaigns.get(id), context: context, testError: message, tokens: typed, status: 422)
        }
    }
}
