import HeraldFCM
import HeraldJSON
import HeraldPostgres

/// `herald doctor`: checks a setup end to end and says what is wrong in plain words — the
/// database, its migrations, the service-account key, a token, a validate-only send, and the topic API.
public enum Doctor {
    public struct Check: Sendable, Equatable {
        /// A warning works today but needs the operator before a date or a change.
        public enum Outcome: String, Sendable { case ok, warning, problem, skipped }
        public var name: String
        public var outcome: Outcome
        public var detail: String
    }

    /// Runs every check in order; a check that depends on a failed one is skipped, with the reason.
    public static func run(_ configuration: HeraldConfiguration) -> [Check] {
        var checks: [Check] = []
        let connection: PostgresConnection?
        do {
            connection = try configuration.database.connect()
            checks.append(Check(name: "database", outcome: .ok, detail: "reachable"))
        } catch {
            connection = nil
            checks.append(Check(name: "database", outcome: .problem,
                                detail: "cannot reach the database named by DATABASE_URL: \(error)"))
        }
        defer { connection?.close() }
        checks.append(migrations(configuration, connection))
        checks.append(background(connection))
        checks.append(contentsOf: sending(configuration))
        checks.append(topicAPI(configuration.fcm.topicAPI))
        return checks
    }

    /// Which API subscribes devices to topics, and the Instance ID API's turndown when it is chosen.
    static func topicAPI(_ api: TopicAPI) -> Check {
        switch api {
        case .v1:
            return Check(name: "topic API", outcome: .ok,
                         detail: "FCM v1 topicSubscriptions (HERALD_FCM_TOPIC_API=v1): devices by token and by installation ID")
        case .instanceID:
            return Check(name: "topic API", outcome: .warning, detail: """
                the Instance ID API (HERALD_FCM_TOPIC_API=instance-id): Google turns it down on \(TopicAPI.instanceIDTurndown), \
                and projects created after \(TopicAPI.instanceIDOnboardingEnd) cannot use it at all; devices registered by installation ID \
                are not subscribed. Set HERALD_FCM_TOPIC_API=v1 (FCM v1 topicSubscriptions) before then
                """)
        }
    }

    static func migrations(_ configuration: HeraldConfiguration, _ connection: PostgresConnection?) -> Check {
        guard let connection else {
            return Check(name: "migrations", outcome: .skipped, detail: "needs the database")
        }
        do {
            let status = try Migrator(directory: configuration.database.migrationsDirectory).status(connection)
            let pending = status.filter { $0.state == .pending }.map(\.name)
            let changed = status.filter { $0.state == .changed }.map(\.name)
            let missing = status.filter { $0.state == .fileMissing }.map(\.name)
            if !changed.isEmpty || !missing.isEmpty {
                return Check(name: "migrations", outcome: .problem, detail: [
                    changed.isEmpty ? nil : "applied migrations edited since: \(changed.joined(separator: ", "))",
                    missing.isEmpty ? nil : "applied migrations missing from \(configuration.database.migrationsDirectory): \(missing.joined(separator: ", "))",
                ].compactMap { $0 }.joined(separator: "; "))
            }
            if !pending.isEmpty {
                return Check(name: "migrations", outcome: .problem,
                             detail: "\(pending.count) not applied yet (\(pending.joined(separator: ", "))): run `herald migrate`")
            }
            return Check(name: "migrations", outcome: .ok, detail: "all \(status.count) applied, from \(configuration.database.migrationsDirectory)")
        } catch {
            return Check(name: "migrations", outcome: .problem, detail: "\(error)")
        }
    }

    static func sending(_ configuration: HeraldConfiguration) -> [Check] {
        guard let path = configuration.fcm.serviceAccountKeyPath else {
            return [Check(name: "service-account key", outcome: .problem,
                          detail: "none configured: set HERALD_SERVICE_ACCOUNT_KEY to a Firebase service-account JSON key to send")]
        }
        let account: ServiceAccount
        do {
            account = try ServiceAccount(contentsOfFile: path)
        } catch {
            return [Check(name: "service-account key", outcome: .problem, detail: "\(path): \(error)")]
        }
        var checks = [Check(name: "service-account key", outcome: .ok,
                            detail: "\(account.clientEmail), project \(account.projectID)")]
        let http: CurlHTTPClient
        do {
            http = try SenderSetup.httpClient(configuration.fcm)
        } catch {
            checks.append(Check(name: "CA file", outcome: .problem, detail: "\(error)"))
            return checks
        }
        let tokens = ServiceAccountTokenProvider(account: account, tokenURI: configuration.fcm.oauthTokenURL, http: http)
        do {
            _ = try tokens.accessToken()
            checks.append(Check(name: "access token", outcome: .ok, detail: "obtained from \(configuration.fcm.oauthTokenURL ?? account.tokenURI)"))
        } catch {
            checks.append(Check(name: "access token", outcome: .problem, detail: "the token endpoint refused the key: \(error)"))
            checks.append(Check(name: "validate-only send", outcome: .skipped, detail: "needs an access token"))
            return checks
        }
        let sender = FCMSender(configuration: FCMConfiguration(projectID: account.projectID, baseURL: configuration.fcm.baseURL,
                                                               topicAPI: configuration.fcm.topicAPI),
                               credentials: tokens, http: http)
        let probe: JSON = ["topic": "herald-doctor", "notification": ["title": "Herald doctor", "body": "validate-only"]]
        switch sender.send(probe, validateOnly: true) {
        case .sent:
            checks.append(Check(name: "validate-only send", outcome: .ok, detail: "FCM accepted a dry-run message at \(configuration.fcm.baseURL)"))
        case .failed(let error):
            checks.append(Check(name: "validate-only send", outcome: .problem, detail: "FCM refused a dry-run message: \(error)"))
        }
        return checks
    }
}
