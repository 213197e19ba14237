import FCMMessage
import HeraldJSON

/// Turns an HTTP answer from the v1 send endpoint into a `SendOutcome`, as FCM documents its
/// answers: only FCM's own error body names a device or message problem. A 4xx without it (an HTML
/// page from a proxy, a wrong base URL) is `UNEXPECTED_ANSWER`, which prunes no device.
enum FCMResponseClassifier {
    /// `url`: where the request went, named in the error of an answer that is not FCM's.
    static func outcome(for response: HTTPClientResponse, url: String = "", now: UnixTime) -> SendOutcome {
        let body = try? JSON.parse(response.body)
        if (200..<300).contains(response.status) {
            if let name = body?["name"]?.stringValue { return .sent(name: name) }
            return .failed(FCMError(code: .internal, httpStatus: response.status,
                                    message: "FCM answered \(response.status) without a message name", isRetryable: false))
        }
        let error = body?["error"]
        guard error?["status"]?.stringValue != nil || error?["details"] != nil || !Self.needsFCMsBody(response.status) else {
            let text = String(decoding: response.body.prefix(200), as: UTF8.self)
            return .failed(FCMError(code: .unexpectedAnswer, httpStatus: response.status,
                                    message: "\(url.isEmpty ? "The send endpoint" : url) answered \(response.status) without FCM's error body, "
                                        + "so the request did not reach FCM as configured (check HERALD_FCM_BASE_URL and any proxy): \(text)"))
        }
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

    /// Whether an answer of this status is read only with FCM's error body: any 4xx but 401 (our
    /// own token, refreshed once) and 429 (a rate, retried). A 5xx without it is still a server
    /// error, retried with backoff.
    static func needsFCMsBody(_ status: Int) -> Bool {
        (400..<500).contains(status) && status != 401 && status != 429
    }

    /// The code an answer without an error body gets, from its status alone.
    static func fallbackCode(forStatus status: Int) -> FCMErrorCode {
        switch status {
        case 401: .unauthenticated
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
