import FCMMessage
import HeraldJSON
import HeraldSync

/// One row of the FCM Data API: what FCM did with the messages of one day (as FCM dates them),
/// Android app and analytics label ("" for messages sent without one). Only devices that share
/// usage and diagnostics data are counted, and a day's figures may come up to a day late.
public struct AndroidDeliveryRow: Sendable, Equatable {
    /// "YYYY-MM-DD".
    public var day: String
    public var appID: String
    public var label: String
    public var accepted: Int
    public var notificationsAccepted: Int
    /// Each of FCM's objects of percents (`FCMDeliveryFigureGroup`), by FCM's names of its figures.
    public var percents: [FCMDeliveryFigureGroup: [String: Double]]

    public init(day: String, appID: String, label: String, accepted: Int, notificationsAccepted: Int,
                percents: [FCMDeliveryFigureGroup: [String: Double]]) {
        self.day = day
        self.appID = appID
        self.label = label
        self.accepted = accepted
        self.notificationsAccepted = notificationsAccepted
        self.percents = percents
    }

    /// A `GoogleFirebaseFcmDataV1beta1AndroidDeliveryData` object (int64 counts come as strings).
    init?(json: JSON) {
        guard let app = json["appId"]?.stringValue, let year = json["date"]?["year"]?.intValue,
              let month = json["date"]?["month"]?.intValue, let dayOfMonth = json["date"]?["day"]?.intValue else { return nil }
        func count(_ value: JSON?) -> Int { value?.stringValue.flatMap { Int($0) } ?? value?.intValue ?? 0 }
        func pad(_ value: Int, _ width: Int) -> String { String(repeating: "0", count: max(0, width - String(value).count)) + String(value) }
        day = "\(pad(year, 4))-\(pad(month, 2))-\(pad(dayOfMonth, 2))"
        appID = app
        label = json["analyticsLabel"]?.stringValue ?? ""
        accepted = count(json["data"]?["countMessagesAccepted"])
        notificationsAccepted = count(json["data"]?["countNotificationsAccepted"])
        var percents: [FCMDeliveryFigureGroup: [String: Double]] = [:]
        for group in FCMDeliveryFigureGroup.allCases {
            for (name, value) in json["data"]?[group.rawValue]?.objectValue ?? [:] {
                if let number = value.doubleValue { percents[group, default: [:]][name] = number }
            }
        }
        self.percents = percents
    }
}

/// The FCM Data API (`fcmdata.googleapis.com/v1beta1`): delivery figures per day, Android app and
/// analytics label. Needs a token of the `cloud-platform` scope and the API enabled in the project.
public final class FCMDataClient: Sendable {
    public static let scope = "https://www.googleapis.com/auth/cloud-platform"

    public let baseURL: String
    public let projectID: String
    let credentials: any AccessTokenProvider
    let http: CurlHTTPClient
    /// Passing trouble (429, 5xx, no answer) is tried again with exponential backoff and full
    /// jitter, never sooner than `Retry-After`, up to 5 attempts and `retryBudget` of waiting in
    /// all: a refresh asked for in a request answers well before a proxy's 60 s.
    public let retryPolicy: RetryPolicy
    public let retryBudget: Duration

    public init(baseURL: String, projectID: String, credentials: any AccessTokenProvider, http: CurlHTTPClient,
                retryPolicy: RetryPolicy = RetryPolicy(maxAttempts: 5, baseDelay: .seconds(1), maxDelay: .seconds(8), quotaExceededMinimumDelay: .zero),
                retryBudget: Duration = .seconds(30)) {
        self.retryPolicy = retryPolicy
        self.retryBudget = retryBudget
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.projectID = projectID
        self.credentials = credentials
        self.http = http
    }

    /// Every row the API has for `app`, page after page.
    public func deliveryData(app: String) throws(FCMError) -> [AndroidDeliveryRow] {
        var rows: [AndroidDeliveryRow] = [], pageToken: String?
        repeat {
            let page = try pageWithRetries(app: app, pageToken: pageToken)
            rows += page.rows
            pageToken = page.next
        } while pageToken != nil
        return rows
    }

    private func pageWithRetries(app: String, pageToken: String?) throws(FCMError) -> (rows: [AndroidDeliveryRow], next: String?) {
        var attempt = 1, waited: Duration = .zero
        while true {
            do {
                return try page(app: app, pageToken: pageToken)
            } catch {
                guard let delay = retryPolicy.delay(forAttempt: attempt, outcome: .failed(error)), waited + delay <= retryBudget else { throw error }
                sleepThread(for: delay)
                waited += delay
                attempt += 1
            }
        }
    }

    private func page(app: String, pageToken: String?, retried: Bool = false) throws(FCMError) -> (rows: [AndroidDeliveryRow], next: String?) {
        let token = try credentials.accessToken()
        var url = "\(baseURL)/v1beta1/projects/\(projectID)/androidApps/\(FormEncoding.escape(app))/deliveryData?pageSize=1000"
        if let pageToken { url += "&pageToken=" + FormEncoding.escape(pageToken) }
        let request = HTTPClientRequest(method: "GET", url: url, headers: [("Authorization", "Bearer \(token)")], timeout: .seconds(60))
        let response: HTTPClientResponse
        switch http.perform(request) {
        case .success(let answer): response = answer
        case .failure(let failure):
            throw FCMError(code: .transport, httpStatus: nil, message: "the FCM Data API at \(baseURL) did not answer: \(failure)", isRetryable: true)
        }
        let body = try? JSON.parse(response.body)
        if response.status == 401, !retried {
            credentials.invalidate(token)
            return try page(app: app, pageToken: pageToken, retried: true)
        }
        guard response.status == 200, let body else {
            // Google answers {"error": {"status": "PERMISSION_DENIED", "message": "…API has not been used in project…"}}.
            let status = body?["error"]?["status"]?.stringValue ?? "HTTP \(response.status)"
            let message = body?["error"]?["message"]?.stringValue ?? String(decoding: response.body.prefix(300), as: UTF8.self)
            throw FCMError(code: FCMErrorCode(rawValue: status), httpStatus: response.status,
                           message: "the FCM Data API refused to list delivery data of \(app): \(message)",
                           retryAfter: response.header("Retry-After").flatMap { RetryAfter.parse($0, now: .now()) },
                           isRetryable: response.status == 429 || response.status >= 500)
        }
        let rows = (body["androidDeliveryData"]?.arrayValue ?? []).compactMap(AndroidDeliveryRow.init(json:))
        let next = body["nextPageToken"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        return (rows, next)
    }
}
