import Foundation
import HeraldApp
import HeraldCore
import HeraldHTTP

/// The marketer's pages: the campaign list, the composer, review and report. Plain HTML forms
/// that work without JavaScript; every state change is a POST carrying the CSRF token, and every
/// one goes through `CampaignService`, exactly as the REST API does.
struct CampaignPages: Sendable {
    let campaigns: CampaignService
    let images: ImageService
    let segments: SegmentService
    let deliveryData: DeliveryDataService
    let contactPolicy: ContactPolicyService
    let pages: PageRenderer
    let sendingConfigured: Bool

    static let pageSize = 20

    init(app: HeraldApplication, pages: PageRenderer) {
        campaigns = app.campaigns
        images = app.images
        segments = app.segments
        deliveryData = app.deliveryData
        contactPolicy = app.contactPolicy
        self.pages = pages
        sendingConfigured = app.sendingConfigured
    }

    // MARK: - The list

    func list(_ context: RequestContext) throws -> HTTPResponse {
        let words = context.words
        var status: CampaignStatus?
        var query = ""
        var cursor: CampaignCursor?
        for (name, value) in context.request.queryItems {
            switch name {
            case "status": status = CampaignStatus(rawValue: value)
            case "q": query = String(value.filter { $0 != "\u{0}" }.prefix(200))
            case "cursor": cursor = CampaignCursor(token: value)
            default: break
            }
        }
        let page = try campaigns.list(CampaignFilter(statuses: Set([status].compactMap { $0 }), nameContains: query), limit: Self.pageSize, after: cursor)
        let next = page.nextCursor.map { next in
            var items = [("cursor", next.token)]
            if let status { items.append(("status", status.rawValue)) }
            if !query.isEmpty { items.append(("q", query)) }
            return "/campaigns?" + items.map { "\($0)=\(PercentEncoding.encode($1))" }.joined(separator: "&")
        }
        let summaries = try campaigns.summaries(page.campaigns.map(\.id))
        let segmentSummaries = try segments.summaries(of: page.campaigns)
        let rows = page.campaigns.map { CampaignRow($0, viewer: context.viewer, summary: summaries[$0.id], segments: segmentSummaries, words: words) }
        return pages.page(CampaignListView(
            chrome: chrome(context, title: words.text("nav.campaigns")), q: query, filtered: status != nil || !query.isEmpty, paged: cursor != nil,
            statuses: [Choice("", text: words.text("list.all_statuses"), selected: status == nil)]
                + CampaignStatus.allCases.map { Choice($0.rawValue, text: words.statusText($0), selected: $0 == status) },
            campaigns: rows, empty: page.campaigns.isEmpty, next: next))
    }

    // MARK: - The composer

    func new(_ context: RequestContext) -> HTTPResponse {
        composer(CampaignForm.blank(), errors: FormErrors(), id: nil, status: nil, context: context)
    }

    func edit(_ context: RequestContext) throws -> HTTPResponse {
        let record = try campaigns.get(try context.campaignID())
        return composer(CampaignForm(spec: try record.spec(), version: record.version), errors: FormErrors(), id: record.id.description,
                        status: record.status, context: context)
    }

    /// Creates (`POST /campaigns`) or updates (`POST /campaigns/{id}`) from the composer's form.
    func save(_ context: RequestContext) throws -> HTTPResponse {
        let words = context.words
        let id = try context.request.parameters["id"].map { _ in try context.campaignID() }
        if let problem = context.formError {
            return pages.page(MessageView(context, heading: words.text("composer.unreadable"), text: problem), status: 400)
        }
        var form = CampaignForm(fields: context.form.fields)
        var uploadErrors = FormErrors()
        // An image chosen for the notification or a variant is stored first and its URL put in the form.
        let upload = ImageUpload(context: context, images: images)
        if let url = try upload.store("image_file", errorsAt: "image_file", errors: &uploadErrors) { form.imageURL = url }
        for index in form.variants.indices {
            let id = form.variants[index].id
            if let url = try upload.store("variant_image_file_\(id)", errorsAt: "variant_image_\(id)", errors: &uploadErrors) { form.variants[index].image = url }
        }
        let action = context.form.value("action") ?? "save"
        if let edit = CampaignForm.RowEdit(action: action) {
            // A row added or removed without JavaScript: the same form back, nothing saved yet.
            var errors = uploadErrors
            if !form.apply(edit) { errors.add("variants", words.text("composer.error.variants_max", words.number(CampaignLimits.variants))) }
            let status = try id.map { try campaigns.get($0).status }
            return composer(form, errors: errors, id: id?.description, status: status, context: context)
        }
        let parsed = form.parse(words: words)
        guard case .success(let spec) = parsed, uploadErrors.isEmpty else {
            var errors = uploadErrors
            if case .failure(let formErrors) = parsed { errors.add(formErrors) }
            let status = try id.map { try campaigns.get($0).status }
            return composer(form, errors: errors, id: id?.description, status: status, context: context, httpStatus: 422)
        }
        guard let id else {
            let record = try campaigns.create(spec, by: context.actor, now: Date())
            return PageRenderer.redirect(to: Self.next(action, record.id.description, words: words))
        }
        guard let version = form.version else {
            var errors = FormErrors()
            errors.add("form", words.text("composer.error.no_version"))
            return composer(form, errors: errors, id: id.description, status: try campaigns.get(id).status, context: context, httpStatus: 422)
        }
        do {
            let record = try campaigns.update(id, expectedVersion: version, spec: spec, by: context.actor, now: Date())
            return PageRenderer.redirect(to: Self.next(action, record.id.description, words: words))
        } catch AppError.versionMismatch {
            return try conflict(form: form, current: try campaigns.get(id), context: context)
        } catch AppError.conflict(_, _, _, let status?) {
            var errors = FormErrors()
            errors.add("form", words.text("composer.error.not_editable", words.statusText(status).lowercased()))
            return composer(form, errors: errors, id: id.description, status: status, context: context, httpStatus: 409)
        } catch AppError.invalid(let refusal, _) {
            var errors = FormErrors()
            for error in refusal.errors {
                errors.add("form", words.text("composer.error.needs_future", words.fieldError(error)))
            }
            return composer(form, errors: errors, id: id.description, status: try campaigns.get(id).status, context: context, httpStatus: 422)
        }
    }

    /// Someone saved since this author loaded the form: show theirs and yours, keep yours in the
    /// form (now based on their version), and overwrite only if the author saves again.
    func conflict(form: CampaignForm, current: CampaignRecord, context: RequestContext) throws -> HTTPResponse {
        let words = context.words
        var mine = form
        mine.version = current.version
        var ignored = FormErrors()
        let conflict = ConflictView(current: current, yours: form.contractJSON(errors: &ignored, words: words), yourVersion: form.version ?? 0, words: words)
        return pages.page(ComposerView(chrome: chrome(context, title: words.text("composer.conflict.title", current.name)), form: mine, errors: FormErrors(),
                                       campaignID: current.id.description, status: current.status, conflict: conflict,
                                       segments: segmentChoices(context)), status: 409)
    }

    func composer(_ form: CampaignForm, errors: FormErrors, id: String?, status: CampaignStatus?, context: RequestContext,
                  httpStatus: Int = 200) -> HTTPResponse {
        let words = context.words
        let segments = segmentChoices(context)
        var view = ComposerView(chrome: chrome(context, title: id == nil ? words.text("nav.new_campaign") : words.text("composer.edit_title", form.name)),
                                form: form, errors: errors, campaignID: id, status: status, segments: segments)
        view.contactReach = contactReach(form, segments: segments, context: context)
        return pages.page(view, status: httpStatus)
    }

    /// What the contact policy leaves of the chosen segment for the campaign as typed (its
    /// category, whether it is transactional); nil when it changes nothing or cannot say yet.
    func contactReach(_ form: CampaignForm, segments: [(segment: Segment, devices: Int)], context: RequestContext) -> String? {
        let words = context.words
        var ignored = FormErrors()
        guard case .success(let spec) = CampaignSpec.parse(form.contractJSON(errors: &ignored, words: words)) else { return nil }
        do {
            if form.targetKind == "topics" || form.targetKind == "condition" {
                return try contactPolicy.leavesTopicsUncapped(spec) ? words.text("review.contact_topics") : nil
            }
            guard form.targetKind == "segment", let devices = segments.first(where: { $0.segment.id.description == form.segment })?.devices else { return nil }
            return try contactPolicy.reachForecast(spec, audience: devices).map { Self.contactReachText($0, words: words) }
        } catch {
            context.log.warning("the contact policy's forecast could not be read: \(error)")
            return nil
        }
    }

    /// The saved segments with their reach, for the target step. When they cannot be read the
    /// composer still works for topics, and the failure is logged rather than lost.
    func segmentChoices(_ context: RequestContext) -> [(segment: Segment, devices: Int)] {
        do {
            return try segments.listWithKeptReach().map { ($0.segment, $0.devices) }
        } catch {
            context.log.warning("segments for the composer could not be read: \(error)")
            return []
        }
    }

    /// The counter's figures for the form as typed so far (the composer script asks as the author types).
    func budget(_ context: RequestContext) -> HTTPResponse {
        APIResponse(status: 200, body: BudgetView(CampaignForm(fields: context.form.fields), words: context.words).json).httpResponse
    }

    // MARK: - Helpers

    /// The layout's part of a campaign page: the viewer, and the notice a redirect asked for.
    func chrome(_ context: RequestContext, title: String) -> PageChrome {
        PageChrome(context, title: title, flash: Self.notice(context).map { [$0] } ?? [])
    }

    static func next(_ action: String, _ id: String, words: Localized) -> String {
        action == "review" ? "/campaigns/\(id)/review" : "/campaigns/\(id)/edit?notice=\(Notice.saved.rawValue)"
    }

    /// The notice a page shows after a redirect, chosen by a word in the query (`?notice=saved`),
    /// so no text from the URL is ever shown.
    enum Notice: String, Sendable {
        case saved, scheduled, published, cancelled, paused, resumed, deleted, duplicated, winnerSent = "winner-sent"
        case submitted, approved, rejected

        func text(_ words: Localized) -> String { words.text("notice.\(rawValue)") }
    }

    static func notice(_ context: RequestContext) -> String? {
        context.query("notice").flatMap(Notice.init(rawValue:))?.text(context.words)
    }

    /// The URL devices fetch an uploaded image from (see `RequestContext.publicURL`).
    static func publicURL(_ context: RequestContext, _ path: String) -> String {
        context.publicURL(path)
    }
}
