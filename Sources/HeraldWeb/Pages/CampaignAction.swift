import HeraldApp
import HeraldHTTP

/// What a viewer may do to a campaign from its pages, and the least role each takes: the route
/// table adds each action's route with this role, and the pages offer an action's button only
/// to a viewer it would let through, so the two cannot disagree.
enum CampaignAction: CaseIterable, Sendable {
    case edit, save, schedule, publish, cancel, pause, resume, submit, approve, reject, sendWinner, delete, duplicate, test, refreshDelivery

    var role: Role {
        switch self {
        case .edit, .save, .submit, .delete, .duplicate, .test: .editor
        case .schedule, .publish, .cancel, .pause, .resume, .approve, .reject, .sendWinner, .refreshDelivery: .publisher
        }
    }

    var method: HTTPMethod { self == .edit ? .get : .post }

    /// The route's pattern.
    var pattern: String {
        switch self {
        case .edit: "/campaigns/{id}/edit"
        case .save: "/campaigns/{id}"
        case .schedule: "/campaigns/{id}/schedule"
        case .publish: "/campaigns/{id}/publish"
        case .cancel: "/campaigns/{id}/cancel"
        case .pause: "/campaigns/{id}/pause"
        case .resume: "/campaigns/{id}/resume"
        case .submit: "/campaigns/{id}/submit"
        case .approve: "/campaigns/{id}/approve"
        case .reject: "/campaigns/{id}/reject"
        case .sendWinner: "/campaigns/{id}/send-winner"
        case .delete: "/campaigns/{id}/delete"
        case .duplicate: "/campaigns/{id}/duplicate"
        case .test: "/campaigns/{id}/test"
        case .refreshDelivery: "/campaigns/{id}/fcm-delivery"
        }
    }

    /// The route's access rule.
    var access: Access { .page(role) }

    /// A test send and a refresh of FCM's figures call FCM and may wait on it: the slow handlers' work.
    var waitsOnFCM: Bool { self == .test || self == .refreshDelivery }
}

extension CampaignPages {
    /// The handler of `action`'s route.
    func handler(for action: CampaignAction) -> @Sendable (RequestContext) throws -> HTTPResponse {
        switch action {
        case .edit: edit
        case .save: save
        case .schedule: schedule
        case .publish: publish
        case .cancel: cancel
        case .pause: pause
        case .resume: resume
        case .submit: submitForApproval
        case .approve: approve
        case .reject: reject
        case .sendWinner: sendWinner
        case .delete: delete
        case .duplicate: duplicate
        case .test: test
        case .refreshDelivery: refreshFCMDelivery
        }
    }
}

extension Role {
    /// Whether this role's viewer gets through `action`'s route.
    func may(_ action: CampaignAction) -> Bool { self >= action.role }
}
