import Foundation
import HeraldCore
import HeraldFCM
import HeraldHTTP
import HeraldJSON

/// The review step and the campaign actions: schedule, publish, cancel, delete, duplicate, test.
extension CampaignPages {
    func review(_ request: HTTPRequest, _ user: PageUser) -> HTTPResponse {
        guarded(request, user) { try reviewPage(try existing(request), user: user, request: request) }
    }

    func reviewPage(_ record: CampaignRecord, user: PageUser, request: HTTPRequest, tests: [TestSend.Result]? = nil,
                    testError: String? = nil, tokens: String = "", actionError: String? = nil, status: Int = 200) throws -> HTTPResponse {
        let plan = FanOutPlanner.plan(campaign: record.spec, buckets: buckets, campaignID: record.id, sendTime: Date())
        let variants = record.spec.effectiveVariants
        let options = record.spec.options
        var context: [String: Any] = [
            "campaign": Self.row(record, user: user),
            "variants": variants.map { variant -> [String: Any] in
                var item = ComposerView.preview(title: variant.notification.title ?? "", body: variant.notification.body ?? "",
                                                imageURL: variant.notification.image ?? "", color: options.color ?? "", icon: options.icon ?? "")
                item["key"] = variant.key
                item["weight"] = variant.weight
                item["characters"] = variant.notification.characterCount
                return item
            },
            "requests": plan.requests.enumerated().map { index, planned in
                [
                    "number": index + 1, "first": index == 0, "variant": planned.variantKey, "bytes": planned.message.payloadSize,
                    "body": JSON.object(["message": planned.message.json(), "validate_only": false]).prettyString(),
                ] as [String: Any]
            },
            "warnings": plan.warnings,
            "holdout": record.spec.holdoutPercent, "has_holdout": record.spec.holdoutPercent > 0,
            "can_schedule": record.isEditable && user.canPublish,
            "can_cancel": ["draft", "scheduled", "sending"].contains(record.status) && user.canPublish,
            "can_test": user.canEdit && sender != nil,
            "sending_configured": sender != nil,
            "tokens": tokens,
            "max_tokens": TestSend.maximumTokens,
            "variant_keys": variants.map(\.key),
        ]
        if let actionError { context["action_error"] = actionError }
        if let testError { context["test_error"] = testError }
        if let tests {
            context["tests"] = tests.map { result -> [String: Any] in
                switch result.outcome {
                case .sent(let name): ["token": result.token, "ok": true, "detail": name, "attempts": result.attempts]
                case .failed(let error): ["token": result.token, "ok": false, "detail": "\(error.code.rawValue): \(error.message)", "attempts": result.attempts]
                }
            }
        }
        return page("review", context, title: "Review: \(record.spec.name)", user: user, request: request, status: status)
    }

    func schedule(_ request: HTTPRequest, _ user: PageUser) -> HTTPResponse { arm(request, user, now: false) }
    func publish(_ request: HTTPRequest, _ user: PageUser) -> HTTPResponse { arm(request, user, now: true) }

    /// Schedules the campaign at its next occurrence, or (publish) starts it at once.
    func arm(_ request: HTTPRequest, _ user: PageUser, now: Bool) -> HTTPResponse {
        guarded(request, user) {
            let posted = try PostedForm(request)
            let record = try existing(request)
            let version = Int(posted.value("version") ?? "") ?? 0
            let due: Date
            if now {
                due = Date()
            } else {
                switch Arming.firstRun(of: record.spec, now: Date()) {
                case .success(let date): due = date
                case .failure(let errors):
                    return try reviewPage(record, user: user, request: request,
                                          actionError: "It cannot be scheduled: " + errors.errors.map(\.message).joined(separator: "; ") + ".", status: 422)
                }
            }
            let outcome = try pool.withConnection { connection in
                try connection.transaction { connection in
                    let outcome = try lifecycle.schedule(id: record.id, expectedVersion: version, nextRunAt: due, on: connection)
                    try audit.record(now ? "campaign.published" : "campaign.scheduled", outcome, by: user.viewer, request: request, on: connection)
                    return outcome
                }
            }
            return try actionOutcome(outcome, request: request, user: user, notice: now ? "published" : "scheduled", then: now ? "report" : "review")
        }
    }

    func cancel(_ request: HTTPRequest, _ user: PageUser) -> HTTPResponse {
        guarded(request, user) {
            let posted = try PostedForm(request)
            let version = Int(posted.value("version") ?? "") ?? 0
            let outcome = try pool.withConnection { connection in
                let outcome = try lifecycle.cancel(id: request.parameters["id"] ?? "", expectedVersion: version, on: connection)
                try audit.record("campaign.cancelled", outcome, by: user.viewer, request: request, on: connection)
                return outcome
            }
            return try actionOutcome(outcome, request: request, user: user, notice: "cancelled", then: posted.value("back") == "list" ? "list" : "review")
        }
    }

    func actionOutcome(_ outcome: CampaignStore.UpdateOutcome, request: HTTPRequest, user: PageUser, notice: String, then: String) throws -> HTTPResponse {
        switch outcome {
        case .updated(let record):
            let target = then == "list" ? "/campaigns" : "/campaigns/\(record.id)/\(then)"
            return PageRenderer.redirect(to: "\(target)?notice=\(notice)")
        case .notFound:
            throw MissingCampaign(id: request.parameters["id"] ?? "")
        case .versionMismatch(let current):
            return try reviewPage(current, user: user, request: request, actionError:
                "Someone changed this campaign (now version \(current.version)) after you opened the page. Check it below, then try again.", status: 409)
        case .notEditable(let current):
            return try reviewPage(current, user: user, request: request, actionError:
                "This campaign is \(Self.statusText(current.status).lowercased()); that action is no longer possible.", status: 409)
        case .unschedulable(let current, let errors):
            return try reviewPage(current, user: user, request: request, actionError:
                "The schedule has no time left to send at (\(errors.errors.map(\.message).joined(separator: "; "))).", status: 422)
        }
    }

    func delete(_ request: HTTPRequest, _ user: PageUser) -> HTTPResponse {
        guarded(request, user) {
            let posted = try PostedForm(request)
            let version = Int(posted.value("version") ?? "") ?? 0
            let id = request.parameters["id"] ?? ""
            let outcome = try pool.withConnection { connection in
                try connection.transaction { connection in
                    let outcome = try campaigns.delete(id: id, expectedVersion: version, on: connection)
                    if outcome == .deleted {
                        try audit.record("campaign.deleted", by: user.viewer, object: ("campaign", id), request: request, on: connection)
                    }
                    return outcome
                }
            }
            switch outcome {
            case .deleted: return PageRenderer.redirect(to: "/campaigns?notice=deleted")
            case .notFound: throw MissingCampaign(id: request.parameters["id"] ?? "")
            case .versionMismatch(let current), .notADraft(let current):
                return try reviewPage(current, user: user, request: request, actionError:
                    "Not deleted: only drafts can be deleted, and this campaign is \(Self.statusText(current.status).lowercased()) at version \(current.version).", status: 409)
            }
        }
    }

    func duplicate(_ request: HTTPRequest, _ user: PageUser) -> HTTPResponse {
        guarded(request, user) {
            let record = try existing(request)
            var spec = record.spec
            let copyName = "Copy of \(spec.name)"
            spec.name = copyName.count <= CampaignLimits.nameCharacters ? copyName : String(copyName.prefix(CampaignLimits.nameCharacters))
            let copy = try pool.withConnection { connection in
                try connection.transaction { connection in
                    let copy = try campaigns.insert(spec, author: user.email, on: connection)
                    try audit.record("campaign.created", by: user.viewer, object: ("campaign", copy.id), request: request,
                                     details: ["duplicate_of": .string(record.id)], on: connection)
                    return copy
                }
            }
            return PageRenderer.redirect(to: "/campaigns/\(copy.id)/edit?notice=duplicated")
        }
    }

    /// Sends the chosen variant to the typed tokens (one per line or comma-separated), up to 20.
    func test(_ request: HTTPRequest, _ user: PageUser) -> HTTPResponse {
        guarded(request, user) {
            let posted = try PostedForm(request)
            let record = try existing(request)
            let typed = posted.value("tokens") ?? ""
            // Browsers send a textarea's lines with CRLF, one Character in Swift: split on any newline.
            let tokens = typed.split(whereSeparator: { $0.isNewline || $0 == "," || $0 == " " || $0 == "\t" }).map(String.init)
            guard let sender else {
                return try reviewPage(record, user: user, request: request, testError: "Sending is not configured on this server.", tokens: typed, status: 503)
            }
            guard (1...TestSend.maximumTokens).contains(tokens.count) else {
                return try reviewPage(record, user: user, request: request,
                                      testError: "Enter 1 to \(TestSend.maximumTokens) registration tokens (you entered \(tokens.count)).", tokens: typed, status: 422)
            }
            let key = posted.value("variant") ?? ""
            guard let variant = record.spec.variant(key) ?? (key.isEmpty ? record.spec.effectiveVariants.first : nil) else {
                return try reviewPage(record, user: user, request: request, testError: "This campaign has no variant \(key).", tokens: typed, status: 422)
            }
            let results = TestSend.send(record, variant: variant, tokens: tokens, sender: sender)
            return try reviewPage(record, user: user, request: request, tests: results, tokens: typed)
        }
    }
}
