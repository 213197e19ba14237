import FCMMessage
import HeraldJSON

/// Turns an HTTP answer from the v1 send endpoint into a `SendOutcome`.
enum FCMResponseClassifier {
    static func outcome(for response: HTTPClientResponse, now: UnixTime) -> SendOutcome {
        let body = try? JSON.parse(response.body)
        if (200..<300).contains(response.status) {
            if let name = body?["name"]?.stringValue { return .sent(name: name) }
            return .failed(FCMError(code: .internal, httpStatus: response.status,
                                    message: "FCM answered \(response.status) without a message name", isRetryable: false))
        }
        let error = body?["error"]
        let detailCode = error?["details"]?.arrayValue?.lazy
            .filter { $0["@type"]?.stringValue == "type.googleapis.com/google.firebase.fcm.v1.FcmError" }
            .compactMap { $0["errorCode"]?.stringValue }.first
        let code = detailCode.map(FCMErrorCode.init(rawValue:))
            ?? error?["status"]?.stringValue.map(FCMErrorCode.init(rawValue:))
            ?? fallbackCode(forStatus: response.status)
        let message = error?["message"]?.stringValue
            ?? String(decoding: response.body.prefix(300), as: UTF8.self)
        let retryAfter = response.header("Retry-After").flatMap { RetryAfter.parse($0, now: now) }
        return .failed(FCMError(code: code, httpStatus: response.status, message: message, retryAfter: retryAfter))
    }

    static func outcome(for failure: HTTPTransportError) -> SendOutcome {
        .failed(FCMError(code: .transport, httpStatus: nil, message: failure.description))
    }

    /// The code an answer without an error body gets, from its status alone.
    static func fallbackCode(forStatus status: Int) -> FCMErrorCode {
        switch status {
        case 400: .invalidArgument
        case 401: .unauthenticated
        case 403: .permissionDenied
        case 404: .unregistered
        case 429: .quotaExceeded
        case 503: .unavailable
        case 500...599: .internal
        default: FCMErrorCode(rawValue: "HTTP_\(status)")
        }
    }

    /// A 401 about our own bearer token (not THIRD_PARTY_AUTH_ERROR, which is about APNs or web push).
    static func isOwnTokenRefused(_ outcome: SendOutcome) -> Bool {
        guard let error = outcome.error else { return false }
        return error.httpStatus == 401 && error.code == .unauthenticated
    }
}
