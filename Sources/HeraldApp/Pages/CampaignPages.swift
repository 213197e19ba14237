import Foundation
import HeraldCore
import HeraldFCM
import HeraldHTTP
import HeraldJSON
import HeraldPostgres

/// Wraps a page handler in the access rule for `minimum` role ("viewer", "editor", "publisher").
typealias PageGuard = (_ minimum: String, _ handler: @escaping @Sendable (HTTPRequest, PageUser) -> HTTPResponse) -> HTTPHandler

/// The marketer's pages: the campaign list, the composer, review and report. Plain HTML forms
/// that work without JavaScript; every state change is a POST carrying the CSRF token.
struct CampaignPages: Sendable {
    let pool: PostgresPool
    let log: Log
    let renderer: PageRenderer
    let sender: FCMSender?
    let buckets: AudienceBuckets
    let campaigns = CampaignStore()
    let images = ImageStore()
    let lifecycle = LifecycleStore()
    let progress = ProgressStore()
    let events = EventStore()
    let audit = AuditLog()

    static let pageSize = 20

    func register(on router: inout Router, page: PageGuard) {
        router.add(.get, "/", page("viewer") { _, _ in PageRenderer.redirect(to: "/campaigns") })
        router.add(.get, "/campaigns", page("viewer", list))
        router.add(.get, "/campaigns/new", page("editor", new))
        router.add(.post, "/campaigns", page("editor", save))
        router.add(.get, "/campaigns/{id}/edit", page("editor", edit))
        router.add(.post, "/campaigns/{id}", page("editor", save))
        router.add(.get, "/campaigns/{id}/review", page("viewer", review))
        router.add(.post, "/campaigns/{id}/schedule", page("publisher", schedule))
        router.add(.post, "/campaigns/{id}/publish", page("publisher", publish))
        router.add(.post, "/campaigns/{id}/cancel", page("publisher", cancel))
        router.add(.post, "/campaigns/{id}/delete", page("editor", delete))
        router.add(.post, "/campaigns/{id}/duplicate", page("editor", duplicate))
        router.add(.post, "/campaigns/{id}/test", page("editor", test))
        router.add(.get, "/campaigns/{id}/report", page("viewer", report))
    }

    // MARK: - The list

    func list(_ request: HTTPRequest, _ user: PageUser) -> HTTPResponse {
        var status: String?
        var query = ""
        var cursor: CampaignCursor?
        for (name, value) in request.queryItems {
            switch name {
            case "status": status = CampaignStatus(rawValue: value)?.rawValue
            case "q": query = String(value.prefix(200))
            case "cursor": cursor = CampaignCursor(token: value)
            default: break
            }
        }
        return guarded(request, user) {
            let page = try pool.withConnection {
                try campaigns.list(status: status, nameContains: query, limit: Self.pageSize, after: cursor, on: $0)
            }
            var next: String?
            if let cursor = page.nextCursor {
                var items = [("cursor", cursor.token)]
                if let status { items.append(("status", status)) }
                if !query.isEmpty { items.append(("q", query)) }
                next = "/campaigns?" + items.map { "\($0)=\(Self.percentEncoded($1))" }.joined(separator: "&")
            }
            var context: [String: Any] = [
                "title": "Campaigns", "user": user.context, "csrf_token": user.csrfToken, "can_edit": user.canEdit,
                "flash": Self.notice(request).map { [$0] } ?? [],
                "q": query, "filtered": status != nil || !query.isEmpty, "paged": cursor != nil,
                "statuses": [["value": "", "text": "All statuses", "selected": status == nil]]
                    + CampaignStatus.allCases.map { ["value": $0.rawValue, "text": Self.statusText($0.rawValue), "selected": $0.rawValue == status] },
                "campaigns": page.campaigns.map { Self.row($0, user: user) },
                "empty": page.campaigns.isEmpty,
            ]
            if let next { context["next"] = next }
            return renderer.page("campaigns", context)
        }
    }

    static func row(_ record: CampaignRecord, user: PageUser) -> [String: Any] {
        [
            "id": record.id, "name": record.spec.name, "status": record.status, "status_text": statusText(record.status),
            "schedule": scheduleText(record.spec.schedule), "targets": targetText(record.spec.audience),
            "updated": shortTime(record.updatedAt), "updated_iso": record.updatedAt, "author": record.author ?? "API",
            "version": record.version, "csrf_token": user.csrfToken,
            "editable": record.isEditable && user.canEdit, "cancellable": ["draft", "scheduled", "sending"].contains(record.status) && user.canPublish,
            "deletable": record.status == "draft" && user.canEdit, "can_duplicate": user.canEdit,
        ]
    }

    // MARK: - The composer

    func new(_ request: HTTPRequest, _ user: PageUser) -> HTTPResponse {
        composer(CampaignForm(fields: [("time_zone", "UTC")]), errors: FormErrors(), id: nil, status: nil, user: user, request: request)
    }

    func edit(_ request: HTTPRequest, _ user: PageUser) -> HTTPResponse {
        guarded(request, user) {
            let record = try existing(request)
            return composer(CampaignForm(spec: record.spec, version: record.version), errors: FormErrors(), id: record.id,
                            status: record.status, user: user, request: request)
        }
    }

    /// Creates (`POST /campaigns`) or updates (`POST /campaigns/{id}`) from the composer's form.
    func save(_ request: HTTPRequest, _ user: PageUser) -> HTTPResponse {
        let id = request.parameters["id"]
        return guarded(request, user) {
            let posted: PostedForm
            do { posted = try PostedForm(request) } catch {
                return messagePage(user, status: 400, title: "The form could not be read", text: "\(error)")
            }
            var form = CampaignForm(fields: posted.fields)
            var uploadErrors = FormErrors()
            if let file = posted.file("image_file") {
                switch ImageInspector.inspect(file.body) {
                case .failure(let refusal):
                    uploadErrors.add("image_file", refusal.description)
                case .success(let inspected):
                    let stored = try pool.withConnection { try images.save(file.body, inspected, uploadedBy: user.email, on: $0) }
                    form.imageURL = Self.publicURL(request, stored.path)
                }
            }
            let parsed = form.parse()
            guard case .success(let spec) = parsed, uploadErrors.isEmpty else {
                var errors = uploadErrors
                if case .failure(let formErrors) = parsed {
                    for field in formErrors.order { for message in formErrors[field] { errors.add(field, message) } }
                }
                let status = try id.flatMap { id in try pool.withConnection { try campaigns.find(id: id, on: $0) }?.status }
                return composer(form, errors: errors, id: id, status: status, user: user, request: request, httpStatus: 422)
            }
            let action = posted.value("action") ?? "save"
            guard let id else {
                let record = try pool.withConnection { connection in
                    try connection.transaction { connection in
                        let record = try campaigns.insert(spec, author: user.email, on: connection)
                        try audit.record("campaign.created", by: user.viewer, object: ("campaign", record.id), request: request, on: connection)
                        return record
                    }
                }
                return PageRenderer.redirect(to: Self.next(action, record.id))
            }
            let outcome = try pool.withConnection { connection in
                try connection.transaction { connection in
                    let outcome = try campaigns.update(id: id, expectedVersion: form.version, spec: spec, on: connection)
                    try audit.record("campaign.updated", outcome, by: user.viewer, request: request, on: connection)
                    return outcome
                }
            }
            switch outcome {
            case .updated(let record):
                return PageRenderer.redirect(to: Self.next(action, record.id))
            case .notFound:
                return messagePage(user, status: 404, title: "No such campaign", text: "The campaign \(id) does not exist (it may have been deleted).")
            case .versionMismatch(let current):
                return conflict(form: form, current: current, user: user, request: request)
            case .notEditable(let current):
                var errors = FormErrors()
                errors.add("form", "This campaign is \(Self.statusText(current.status).lowercased()) and can no longer be edited; duplicate it to reuse its content.")
                return composer(form, errors: errors, id: id, status: current.status, user: user, request: request, httpStatus: 409)
            case .unschedulable(let current, let refusal):
                var errors = FormErrors()
                for error in refusal.errors {
                    errors.add("form", "This campaign is scheduled, so it needs a time still ahead: \(error.message). Change the schedule, or cancel the campaign first.")
                }
                return composer(form, errors: errors, id: id, status: current.status, user: user, request: request, httpStatus: 422)
            }
        }
    }

    /// Someone saved since this author loaded the form: show theirs and yours, keep yours in the
    /// form (now based on their version), and overwrite only if the author saves again.
    func conflict(form: CampaignForm, current: CampaignRecord, user: PageUser, request: HTTPRequest) -> HTTPResponse {
        var mine = form
        mine.version = current.version
        var ignored = FormErrors()
        let yours = form.contractJSON(errors: &ignored)
        var context = ComposerView.context(form: mine, errors: FormErrors(), campaignID: current.id, status: current.status)
        let changes = Self.differences(theirs: current.spec.toJSON(), yours: yours)
        context["conflict"] = [
            "their_version": current.version, "your_version": form.version, "their_author": current.author ?? "an API client",
            "their_time": Self.shortTime(current.updatedAt),
            "theirs": current.spec.toJSON().prettyString(), "yours": yours.prettyString(),
            "changes": changes, "has_changes": !changes.isEmpty,
        ]
        return page("composer", context, title: "Conflict: \(current.spec.name)", user: user, request: request, status: 409)
    }

    func composer(_ form: CampaignForm, errors: FormErrors, id: String?, status: String?, user: PageUser,
                  request: HTTPRequest, httpStatus: Int = 200) -> HTTPResponse {
        let context = ComposerView.context(form: form, errors: errors, campaignID: id, status: status)
        let title = id == nil ? "New campaign" : "Edit: \(form.name)"
        return page("composer", context, title: title, user: user, request: request, status: httpStatus)
    }

    // MARK: - Helpers

    /// Renders `template` inside the layout with the user and any notice.
    func page(_ template: String, _ context: [String: Any], title: String, user: PageUser, request: HTTPRequest, status: Int = 200) -> HTTPResponse {
        var context = context
        context["title"] = title
        context["user"] = user.context
        context["csrf_token"] = user.csrfToken
        context["can_edit"] = user.canEdit
        context["can_publish"] = user.canPublish
        context["flash"] = Self.notice(request).map { [$0] } ?? []
        return renderer.page(template, context, status: status)
    }

    func messagePage(_ user: PageUser, status: Int, title: String, text: String) -> HTTPResponse {
        renderer.page("message", ["title": title, "heading": title, "text": text, "user": user.context, "csrf_token": user.csrfToken], status: status)
    }

    /// Runs a page body; a database outage becomes a 503 page, anything else a logged 500 page.
    func guarded(_ request: HTTPRequest, _ user: PageUser, _ body: () throws -> HTTPResponse) -> HTTPResponse {
        do {
            return try body()
        } catch let missing as MissingCampaign {
            return messagePage(user, status: 404, title: "No such campaign", text: "The campaign \(missing.id) does not exist (it may have been deleted).")
        } catch let error as PostgresError where error.isConnectionFailure || error.kind == .poolExhausted {
            log.warning("database unavailable: \(error)", request: request)
            var response = messagePage(user, status: 503, title: "Herald cannot reach its database", text: "Nothing was lost; try again in a moment.")
            response.headers.set("Retry-After", "5")
            return response
        } catch {
            log.error("page failed: \(error)", request: request)
            return messagePage(user, status: 500, title: "Something went wrong", text: "The error was logged; try again, and tell an administrator if it persists.")
        }
    }

    func existing(_ request: HTTPRequest) throws -> CampaignRecord {
        let id = request.parameters["id"] ?? ""
        guard let record = try pool.withConnection({ try campaigns.find(id: id, on: $0) }) else { throw MissingCampaign(id: id) }
        return record
    }

    static func next(_ action: String, _ id: String) -> String {
        action == "review" ? "/campaigns/\(id)/review" : "/campaigns/\(id)/edit?notice=saved"
    }

    /// Fixed notices chosen by a query word, so no text from the URL is ever shown.
    static func notice(_ request: HTTPRequest) -> String? {
        let notices = ["saved": "Draft saved.", "scheduled": "Campaign scheduled.", "published": "Campaign published: sending starts now.",
                       "cancelled": "Campaign cancelled.", "deleted": "Draft deleted.", "duplicated": "Campaign duplicated: this is the copy."]
        return request.queryItems.first { $0.name == "notice" }.flatMap { notices[$0.value] }
    }

    /// The https URL devices fetch an uploaded image from (the Host this page was reached by).
    static func publicURL(_ request: HTTPRequest, _ path: String) -> String {
        let host = request.headers["X-Forwarded-Host"] ?? request.headers["Host"] ?? "localhost"
        return "https://\(host)\(path)"
    }

    static func percentEncoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? ""
    }
}

/// No campaign with the id in the path.
struct MissingCampaign: Error { let id: String }
