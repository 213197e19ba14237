/// An FCM error code: the `errorCode` of the `FcmError` detail when FCM sends one, else the
/// Google status, else one Herald names for failures that never reached FCM.
public struct FCMErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The request is malformed (a bad field, a payload over the limit): fix it, never retry.
    public static let invalidArgument = FCMErrorCode(rawValue: "INVALID_ARGUMENT")
    /// The registration token is no longer valid: stop sending to it.
    public static let unregistered = FCMErrorCode(rawValue: "UNREGISTERED")
    /// The token belongs to another sender.
    public static let senderIDMismatch = FCMErrorCode(rawValue: "SENDER_ID_MISMATCH")
    /// The APNs certificate or web-push key was refused.
    public static let thirdPartyAuthError = FCMErrorCode(rawValue: "THIRD_PARTY_AUTH_ERROR")
    /// The project's (or a device's) send quota is used up: retry later, at least a minute later.
    public static let quotaExceeded = FCMErrorCode(rawValue: "QUOTA_EXCEEDED")
    /// FCM is overloaded: retry with backoff.
    public static let unavailable = FCMErrorCode(rawValue: "UNAVAILABLE")
    /// FCM failed internally: retry with backoff.
    public static let `internal` = FCMErrorCode(rawValue: "INTERNAL")
    /// Our own bearer token was refused (401 without an FCM detail): refresh it once.
    public static let unauthenticated = FCMErrorCode(rawValue: "UNAUTHENTICATED")
    /// The credentials may not send for this project.
    public static let permissionDenied = FCMErrorCode(rawValue: "PERMISSION_DENIED")
    /// No HTTP response: DNS, connect, TLS, timeout, a dropped connection.
    public static let transport = FCMErrorCode(rawValue: "TRANSPORT")
    /// No access token could be obtained from the token endpoint.
    public static let authentication = FCMErrorCode(rawValue: "AUTHENTICATION")
    /// A 4xx answer without FCM's error body: an HTML page from a proxy, a wrong base URL. It
    /// says nothing about the device or the message, only that the request never reached FCM's
    /// send endpoint as configured (Herald names this one).
    public static let unexpectedAnswer = FCMErrorCode(rawValue: "UNEXPECTED_ANSWER")

    /// The codes that say Herald's configuration is wrong for every request of the project, not
    /// that one device or message is (`fcm.md`: "Credential errors concern every request of the
    /// project"): the service account may not send (PERMISSION_DENIED), the project's APNs or
    /// web-push credentials were refused (THIRD_PARTY_AUTH_ERROR), the endpoint is not FCM's
    /// (UNEXPECTED_ANSWER), or our own token was refused (UNAUTHENTICATED: the sender fetched a
    /// fresh one and tried once more before answering it).
    public static let projectWide: Set<FCMErrorCode> = [.permissionDenied, .thirdPartyAuthError, .unexpectedAnswer, .unauthenticated]

    public var description: String { rawValue }
}

/// Why one send failed: the code, the HTTP status (nil when no response came), FCM's message,
/// and the server's `Retry-After` if it gave one.
public struct FCMError: Error, Sendable, Equatable, CustomStringConvertible {
    public let code: FCMErrorCode
    public let httpStatus: Int?
    public let message: String
    /// The wait the server asked for; a retry never comes sooner.
    public let retryAfter: Duration?
    /// Whether trying again later can succeed (quota, unavailable, internal, 5xx, transport);
    /// false for errors in the request itself, which no retry fixes.
    public let isRetryable: Bool

    public init(code: FCMErrorCode, httpStatus: Int?, message: String, retryAfter: Duration? = nil, isRetryable: Bool? = nil) {
        self.code = code
        self.httpStatus = httpStatus
        self.message = message
        self.retryAfter = retryAfter
        self.isRetryable = isRetryable ?? FCMError.isRetryable(code: code, httpStatus: httpStatus)
    }

    /// FCM's rule: quota, unavailable, internal and any 5xx are retried; every other 4xx is permanent.
    static func isRetryable(code: FCMErrorCode, httpStatus: Int?) -> Bool {
        switch code {
        case .quotaExceeded, .unavailable, .internal, .transport: return true
        case .invalidArgument, .unregistered, .senderIDMismatch, .thirdPartyAuthError, .permissionDenied, .unexpectedAnswer: return false
        default: break
        }
        guard let httpStatus else { return false }
        return httpStatus == 429 || httpStatus >= 500
    }

    public var description: String {
        let status = httpStatus.map { " (HTTP \($0))" } ?? ""
        return "\(code)\(status): \(message)"
    }
}

/// The result of one attempt to send one message.
public enum SendOutcome: Sendable, Equatable {
    /// FCM accepted the message; `name` is "projects/{project}/messages/{id}".
    case sent(name: String)
    case failed(FCMError)

    /// The error, if the send failed.
    public var error: FCMError? {
        if case .failed(let error) = self { error } else { nil }
    }

    /// The message name, if the send succeeded.
    public var name: String? {
        if case .sent(let name) = self { name } else { nil }
    }
}
