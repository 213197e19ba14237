import FCMMessage
import Foundation
import HeraldCore
import HeraldJSON
import Testing

/// Parses `text` as JSON (a test's fixed input must be valid JSON) and then as a campaign.
func parseCampaign(_ text: String) throws -> Result<CampaignSpec, ValidationErrors> {
    CampaignSpec.parse(try JSON.parse(text))
}

/// The validation errors of `text`, or a recorded failure when it unexpectedly parses.
func errors(of text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [FieldError] {
    switch try parseCampaign(text) {
    case .success: Issue.record("expected validation errors", sourceLocation: sourceLocation); return []
    case .failure(let failure): return failure.errors
    }
}

/// The campaign in `text`, or a recorded failure listing its errors.
func campaign(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> CampaignSpec {
    switch try parseCampaign(text) {
    case .success(let spec): return spec
    case .failure(let failure):
        Issue.record("unexpected errors: \(failure)", sourceLocation: sourceLocation)
        throw failure
    }
}

/// A JSON string literal of `text`, for building documents in tests.
func quoted(_ text: String) -> String {
    JSON.string(text).serializedString()
}

/// Hands back `message`, first writing its request body (`{"message": …}`) into
/// `$HERALD_FCM_BODIES_DIR` when that is set: `deploy/tests/check-fcm-discovery` then checks every
/// body the renderer tests produced against Google's discovery document of the v1 API.
@discardableResult
func exported(_ message: Message) -> Message {
    if let folder = ProcessInfo.processInfo.environment["HERALD_FCM_BODIES_DIR"], !folder.isEmpty {
        let body = JSON.object(["message": message.json()]).serialized()
        _ = FileManager.default.createFile(atPath: "\(folder)/\(UUID().uuidString).json", contents: Data(body))
    }
    return message
}
