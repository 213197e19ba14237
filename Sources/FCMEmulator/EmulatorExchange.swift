import HeraldJSON

/// A request as the emulator sees it, independent of the server that carried it.
public struct EmulatorRequest: Sendable {
    public var method: String
    /// The request target: path and optional query (`/emulator/messages?since=4`).
    public var target: String
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(method: String, target: String, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
    }

    func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }
}

/// The emulator's answer.
public enum EmulatorAnswer: Sendable {
    /// Respond, after waiting `delay` when a slow answer was injected.
    case respond(EmulatorResponse, delay: Duration?)
    /// Close the connection without answering (an injected fault).
    case dropConnection

    /// The response, if there is one.
    public var response: EmulatorResponse? {
        if case .respond(let response, _) = self { response } else { nil }
    }
}

/// A response's status, headers and body.
public struct EmulatorResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    static func json(_ status: Int, _ value: JSON, headers: [(name: String, value: String)] = []) -> EmulatorResponse {
        EmulatorResponse(status: status, headers: [("Content-Type", "application/json; charset=UTF-8")] + headers, body: value.serialized())
    }

    /// FCM's error body: `{"error": {"code", "message", "status", "details"}}`, with the FcmError
    /// detail when FCM gives an `errorCode`, and a BadRequest field violation when it names a field.
    static func fcmError(
        _ status: Int, _ googleStatus: String, _ message: String,
        errorCode: String? = nil, field: String? = nil, headers: [(name: String, value: String)] = []
    ) -> EmulatorResponse {
        var details: [JSON] = []
        if let errorCode {
            details.append(["@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": .string(errorCode)])
        }
        if let field {
            details.append(["@type": "type.googleapis.com/google.rpc.BadRequest",
                            "fieldViolations": [["field": .string(field), "description": .string(message)]]])
        }
        var error: JSONObject = ["code": .number(Double(status)), "message": .string(message), "status": .string(googleStatus)]
        if !details.isEmpty { error["details"] = .array(details) }
        return json(status, ["error": .object(error)], headers: headers)
    }

    /// Google's OAuth error body: `{"error": "invalid_grant", "error_description": "…"}`.
    static func oauthError(_ status: Int, _ error: String, _ description: String) -> EmulatorResponse {
        json(status, ["error": .string(error), "error_description": .string(description)])
    }
}
