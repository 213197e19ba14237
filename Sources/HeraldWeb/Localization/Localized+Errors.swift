import FCMMessage
import HeraldApp
import HeraldCore

/// Refusals in the request's language, by their machine code: the pages' error messages and the
/// API's problem `title` and `detail` (the `code` itself never changes). English is the services'
/// own wording; a detail that names what only the thrower knows stays in English where no table
/// has a form for its code.
extension Localized {
    /// The sentence a person can act on.
    func message(_ error: AppError) -> String {
        guard language != .en else { return error.message }
        switch error {
        case .notFound(let missing): return text("problem.not_found.what", subject(missing))
        case .invalid(let errors, _):
            return errors.errors.count == 1 ? fieldError(errors.errors[0]) : plural("problem.validation_failed.detail", count: errors.errors.count)
        case .versionMismatch(let version, let expected) where expected > version:
            return text("problem.version_ahead.detail", number(expected), number(version))
        case .versionMismatch(let version, _): return text("problem.version_mismatch.detail", number(version))
        // Herald's web face writes its refusals in the request's language already (see Authentication).
        case .notAllowed(let detail): return detail
        case .conflict(let code, _, let detail, _), .refused(let code, _, let detail): return problemDetail(code: code, detail)
        case .sendingNotConfigured: return text("problem.sending_not_configured.detail", isolate("HERALD_SERVICE_ACCOUNT_KEY"))
        case .unavailable: return text("problem.database_unavailable.detail")
        case .rateLimited(_, let seconds): return plural("problem.rate_limited.detail", count: max(1, (seconds + 59) / 60))
        }
    }

    /// What was not found, in the request's language ("Campaign 3f…"; ids and paths as isolates).
    func subject(_ missing: Missing) -> String {
        switch missing {
        case .campaign(let id?): text("missing.campaign", isolate(id))
        case .campaign(nil): text("missing.the_campaign")
        case .segment: text("missing.segment")
        case .topicJob: text("missing.topic_job")
        case .device: text("missing.device")
        case .user(let id): text("missing.user", isolate(id))
        case .apiKey(let id): text("missing.api_key", isolate(id))
        case .webhook(let id): text("missing.webhook", isolate(id))
        case .send(let id): text("missing.send", isolate(id))
        case .webhookDelivery(let id): text("missing.webhook_delivery", isolate(id))
        case .journey(let id): text("missing.journey", isolate(id))
        case .file(let path): text("missing.file", isolate(path))
        }
    }

    /// A plan's warning on the review page (`PlanWarning.message` is the API's English).
    func planWarning(_ warning: PlanWarning) -> String {
        switch warning {
        case .splitCondition(let topics, let conditions):
            text("plan.split_condition", number(topics), number(TopicCondition.maximumTopics), number(conditions))
        case .noBucket(let variant, let buckets): text("plan.no_bucket", isolate(variant), number(buckets))
        case .unknownVariant(let key): text("plan.unknown_variant", isolate(key))
        case .wholeAudienceTested: text("plan.whole_audience")
        case .noRoomForBuckets(let maximumTopics): text("plan.no_room", number(maximumTopics))
        case .noTimeZones: text("plan.no_time_zones")
        }
    }

    /// The heading of the refusal.
    func title(_ error: AppError) -> String {
        switch error {
        case .notFound: problemTitle(code: "not_found", "Not found")
        case .invalid(_, let title): problemTitle(code: "validation_failed", title)
        case .versionMismatch: problemTitle(code: "version_mismatch", "The campaign has changed")
        case .notAllowed: problemTitle(code: "forbidden", "Forbidden")
        case .conflict(let code, let title, _, _), .refused(let code, let title, _): problemTitle(code: code, title)
        case .sendingNotConfigured: problemTitle(code: "sending_not_configured", "Sending is not configured")
        case .unavailable: problemTitle(code: "database_unavailable", "Service unavailable")
        case .rateLimited: problemTitle(code: "rate_limited", "Too many attempts")
        }
    }
}
