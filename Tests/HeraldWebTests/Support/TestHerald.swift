import HeraldTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import HeraldApp
import HeraldWeb
import HeraldJSON
import HeraldPostgres

/// A running Herald on 127.0.0.1 with an ephemeral port and its own database, and a small client.
final class TestHerald: Sendable {
    let server: HeraldServer
    let databaseURL: String
    let baseURL: String
    /// An admin API key created at start, sent with every request that names no Authorization of its own.
    let apiKey: String
    /// This server's own client session: a shared one keeps connections by host and port, and an
    /// ephemeral port is soon another test's server's, which such a connection then reached (once
    /// answered with leftover bytes: "Received HTTP/0.9"). No cookies of its own either.
    let session: URLSession

    init(databaseURL: String? = nil, environment: [String: String] = [:], log: Log = Log(minimum: .error)) throws {
        let database = try databaseURL ?? TestDatabase.create()
        var variables = [
            "DATABASE_URL": database,
            "HERALD_PORT": "0",
            "HERALD_MIGRATIONS_DIR": TestDatabase.repositoryRoot + "/Migrations",
            "HERALD_PUBLIC_DIR": TestDatabase.repositoryRoot + "/Public",
            "HERALD_HANDLER_THREADS": "8",
            "HERALD_EVENT_LOOPS": "1",
        ]
        variables.merge(environment) { _, new in new }
        let configuration = try HeraldConfiguration(environment: variables)
        server = try HeraldServer(configuration: configuration, log: log)
        try server.start()
        self.databaseURL = database
        baseURL = "http://127.0.0.1:\(server.port)"
        let client = URLSessionConfiguration.ephemeral
        client.httpShouldSetCookies = false
        session = URLSession(configuration: client)
        apiKey = try server.application.database.pool.withConnection { connection in
            try APIKeyStore().create(name: "tests", role: .admin, scope: .full, createdBy: "TestHerald", on: connection).key
        }
    }

    /// Stops taking requests and tells the engine to stop at once; the wait for the rounds in
    /// flight (up to the drain deadline) is not the test's.
    deinit {
        session.invalidateAndCancel()
        server.shutdown()
        let server = server
        inTheBackground { server.wait() }
    }

    /// Whether this instance's delivery engine (it must have one) has looked for work since the
    /// call: see `DeliveryEngine.looksAgain`.
    func engineLooksAgain() async throws -> Bool {
        guard let engine = server.application.engine else { throw NoEngine() }
        return try await engine.looksAgain(waking: databaseURL)
    }

    struct NoEngine: Error, CustomStringConvertible {
        var description: String { "this Herald runs no delivery engine (no FCM key, or HERALD_SCHEDULER=false)" }
    }

    struct Response: Sendable {
        let status: Int
        let headers: [String: String]
        let data: Data
        var json: JSON? { try? JSON.parse(Array(data)) }
        func header(_ name: String) -> String? {
            headers.first { $0.key.lowercased() == name.lowercased() }?.value
        }
    }

    /// Sends one request; `json` sets the body and its content type unless `headers` names one.
    /// The admin `apiKey` goes along unless `authenticated` is false or `headers` has an Authorization.
    func request(_ method: String, _ path: String, json: JSON? = nil, body: [UInt8]? = nil,
                 headers: [String: String] = [:], authenticated: Bool = true) async throws -> Response {
        var request = URLRequest(url: URL(string: baseURL + path)!)
        request.httpMethod = method
        // Cookies are the test's own: a cookie store would replace a Cookie header set here.
        request.httpShouldHandleCookies = false
        if let json {
            request.httpBody = Data(json.serialized())
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        if let body { request.httpBody = Data(body) }
        if authenticated && !headers.keys.contains(where: { $0.lowercased() == "authorization" }) {
            request.setValue("Bearer \(apiKey)", forHTTPHeaderField: "Authorization")
        }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await session.data(for: request)
        let http = response as! HTTPURLResponse
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields { fields["\(name)"] = "\(value)" }
        return Response(status: http.statusCode, headers: fields, data: data)
    }
}
