import HeraldFCM

/// The FCM sender as configured: from the service-account key when one is named, else none
/// (previews work without one; sending answers that it is not configured).
enum SenderSetup {
    static func make(_ configuration: HeraldConfiguration, log: Log) throws -> FCMSender? {
        guard let path = configuration.fcm.serviceAccountKeyPath else {
            log.warning("no service-account key configured (HERALD_SERVICE_ACCOUNT_KEY): sending is disabled")
            return nil
        }
        let account = try ServiceAccount(contentsOfFile: path)
        let fcm = FCMConfiguration(projectID: account.projectID, baseURL: configuration.fcm.baseURL)
        log.info("sending through FCM", ["project": .string(account.projectID), "base_url": .string(configuration.fcm.baseURL)])
        return FCMSender(configuration: fcm, serviceAccount: account, tokenURI: configuration.fcm.oauthTokenURL)
    }
}
