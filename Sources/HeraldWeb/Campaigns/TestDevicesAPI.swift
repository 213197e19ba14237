import HeraldApp
import HeraldCore
import HeraldJSON

/// `/api/v1/test-devices`: the devices test messages may reach with approvals on. Anyone reads
/// the list (the review page offers it); admins keep it, each change in the audit log.
struct TestDevicesAPI: Sendable {
    let testDevices: TestDeviceService

    func list(_ context: RequestContext) throws -> APIResponse {
        APIResponse(status: 200, body: ["items": .array(try testDevices.list().map(\.json))])
    }

    /// `PUT /api/v1/test-devices/{token}` with `{"kind": "token" | "fid", "label": "Ana's Pixel"}` (both optional).
    func put(_ context: RequestContext) throws -> APIResponse {
        let body = try context.jsonBody()
        guard case .object(let members) = body else {
            throw AppError.invalidField("", "A test device is a JSON object such as {\"label\": \"Ana's Pixel\"}.", code: "wrong_type")
        }
        for key in members.keys where !["kind", "label"].contains(key) {
            throw AppError.invalidField(key, "unknown field \"\(key)\"; known: kind, label", code: "unknown_field")
        }
        let kindValue = body["kind"] ?? .string(DeviceKind.token.rawValue)
        guard let kind = kindValue.stringValue.flatMap(DeviceKind.init(rawValue:)) else {
            throw AppError.invalidField("kind", "kind is token or fid.")
        }
        let labelValue = body["label"] ?? .string("")
        guard let label = labelValue.stringValue else { throw AppError.invalidField("label", "label must be a string.") }
        let device = try testDevices.add(context.parameter("token"), kind: kind, label: label, by: context.actor)
        return APIResponse(status: 200, body: device.json)
    }

    func delete(_ context: RequestContext) throws -> APIResponse {
        try testDevices.remove(context.parameter("token"), by: context.actor)
        return APIResponse(status: 204, body: nil)
    }
}

extension TestDevice {
    /// The test devices API's representation.
    var json: JSON {
        ["token": .string(token), "kind": .string(kind.rawValue), "label": .string(label), "added_by": .string(addedBy), "added_at": .time(addedAt)]
    }
}
