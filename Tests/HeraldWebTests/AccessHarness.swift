import HeraldTestSupport
import Foundation
import HeraldHTTP
import HeraldJSON
import HeraldPostgres
@testable import HeraldApp
@testable import HeraldWeb

/// Herald's router in-process over a real database, with helpers to make users, sessions and
/// keys and to send requests as each of them.
final class AccessHarness: Sendable {
    let herald: TestHerald
    let sessions: SessionStore

    init(environment: [String: String] = [:]) throws {
        herald = try TestHerald(environment: environment)
        let configuration = herald.server.application.configuration
        sessions = SessionStore(idleSeconds: configuration.accounts.sessionIdleSeconds, lifetimeSeconds: configuration.accounts.sessionLifetimeSeconds)
    }

    var pool: PostgresPool { herald.server.application.database.pool }

    /// Every route of the one table, with its access rule.
    var routes: [(method: HTTPMethod, pattern: String, route: Route)] { herald.server.routes }

    /// A new user of `role` with a unique e-mail.
    func user(_ role: Role, password: String = "correct horse battery staple") throws -> UserRecord {
        try pool.withConnection {
            try UserStore().create(email: "\(role.rawValue)-\(UUID().uuidString.prefix(8))@example.com", role: role,
                                   passwordHash: PasswordHash.make(password), on: $0)
        }
    }

    /// A fresh session for `user`: the cookie value and the CSRF token.
    func session(_ user: UserRecord) throws -> (id: String, csrf: String) {
        let created = try pool.withConnection { try sessions.create(userID: user.id, on: $0) }
        return (created.id.cookieValue, created.csrfToken)
    }

    func key(_ role: Role, scope: APIKeyScope = .full) throws -> String {
        try pool.withConnection { try APIKeyStore().create(name: "\(role)-\(scope)", role: role, scope: scope, createdBy: nil, on: $0).key }
    }

    /// Runs one request in-process through the whole chain (request in, response out), from 127.0.0.1.
    func send(_ method: HTTPMethod, _ target: String, headers: [(String, String)] = [], body: [UInt8] = []) -> HTTPResponse {
        var fields = HTTPHeaders()
        for (name, value) in headers { fields.add(name, value) }
        return herald.server.respond(HTTPRequest(method: method, target: target, headers: fields, body: body, remoteAddress: "127.0.0.1:40000"))
    }

    /// A form post (urlencoded) with the session cookie, if any.
    func post(_ target: String, form: [(String, String)], session: String? = nil) -> HTTPResponse {
        var headers = [("Content-Type", "application/x-www-form-urlencoded")]
        if let session { headers.append(("Cookie", "\(Authentication.sessionCookie)=\(session)")) }
        return send(.post, target, headers: headers, body: Array(Self.encode(form).utf8))
    }

    /// Posts the sign-in form as a browser would after loading it (double-submit token in cookie and form).
    func signIn(_ email: String, _ password: String) -> HTTPResponse {
        let token = "form-token-\(UUID().uuidString)"
        let form = [("csrf_token", token), ("email", email), ("password", password), ("next", "/campaigns")]
        return send(.post, "/sign-in", headers: [("Content-Type", "application/x-www-form-urlencoded"),
                                                 ("Cookie", "\(SignInPages.signInCookie)=\(token)")],
                    body: Array(Self.encode(form).utf8))
    }

    /// Every row of `table`, each as PostgreSQL's text form of the whole row.
    func rows(_ table: String) throws -> [String] {
        precondition(table.allSatisfy { $0.isLetter || $0 == "_" })
        return try pool.withConnection { connection in
            try connection.query(PostgresQuery(unsafeSQL: "SELECT t::text FROM \(table) t")).map { try $0.decode(String.self, at: 0) }
        }
    }

    func count(_ table: String) throws -> Int { try rows(table).count }

    static func encode(_ form: [(String, String)]) -> String {
        form.map { "\(percent($0.0))=\(percent($0.1))" }.joined(separator: "&")
    }

    static func percent(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }
}

extension HTTPResponse {
    var text: String { String(decoding: body, as: UTF8.self) }
    var json: JSON? { try? JSON.parse(body) }
    /// The value a `Set-Cookie` sets for `name`, if this response sets it.
    func cookie(_ name: String) -> String? {
        for value in headers.values(for: "Set-Cookie") where value.hasPrefix(name + "=") {
            return String(value.dropFirst(name.count + 1).prefix { $0 != ";" })
        }
        return nil
    }
    /// Whether this is the redirect that sends a browser without a session to sign in.
    var sendsToSignIn: Bool { status == 303 && (headers["Location"] ?? "").hasPrefix("/sign-in?next=") }
}
