import HeraldFCM

/// The FCM sender as configured: from the service-account key when one is named, else none
/// (previews work without one; sending answers that it is not configured).
public enum SenderSetup {
    public static func make(_ configuration: HeraldConfiguration, log: Log) throws -> FCMSender? {
        guard let path = configuration.fcm.serviceAccountKeyPath else {
            log.warning("no service-account key configured (HERALD_SERVICE_ACCOUNT_KEY): sending is disabled")
            return nil
        }
        let account = try ServiceAccount(contentsOfFile: path)
        let http = try httpClient(configuration.fcm)
        let fcm = FCMConfiguration(projectID: account.projectID, baseURL: configuration.fcm.baseURL, topicAPI: configuration.fcm.topicAPI)
        if configuration.fcm.topicAPI == .instanceID {
            log.warning("topic subscriptions go through the Instance ID API (HERALD_FCM_TOPIC_API=instance-id), which Google turns down on \(TopicAPI.instanceIDTurndown)")
        }
        log.info("sending through FCM", ["project": .string(account.projectID), "base_url": .string(configuration.fcm.baseURL),
                                         "topic_api": .string(configuration.fcm.topicAPI.rawValue),
                                         "ca_file": .string(configuration.fcm.caFile ?? "system")])
        let tokens = ServiceAccountTokenProvider(account: account, tokenURI: configuration.fcm.oauthTokenURL, http: http)
        return FCMSender(configuration: fcm, credentials: tokens, http: http)
    }

    /// The FCM Data API client of the same key, with a token of the `cloud-platform` scope; nil without a key.
    static func makeDataClient(_ configuration: HeraldConfiguration) throws -> FCMDataClient? {
        guard let path = configuration.fcm.serviceAccountKeyPath else { return nil }
        let account = try ServiceAccount(contentsOfFile: path)
        let http = try httpClient(configuration.fcm)
        let tokens = ServiceAccountTokenProvider(account: account, tokenURI: configuration.fcm.oauthTokenURL, http: http, scope: FCMDataClient.scope)
        return FCMDataClient(baseURL: configuration.fcm.dataURL, projectID: account.projectID, credentials: tokens, http: http)
    }

    /// The HTTP client for the FCM and token endpoints, trusting `HERALD_FCM_CA_FILE` when set;
    /// an unusable CA file is refused here, naming the variable, rather than on every send.
    public static func httpClient(_ settings: FCMSettings) throws(ConfigurationError) -> CurlHTTPClient {
        if let caFile = settings.caFile {
            do {
                try CAFile.check(caFile)
            } catch {
                throw ConfigurationError(variable: "HERALD_FCM_CA_FILE", value: caFile,
                                         expected: "a readable PEM file of CA certificates (\(error))")
            }
        }
        return CurlHTTPClient(caFile: settings.caFile)
    }
}
