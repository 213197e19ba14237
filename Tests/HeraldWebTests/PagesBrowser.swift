import Foundation
import HeraldHTTP
@testable import HeraldApp
@testable import HeraldWeb

/// A signed-in browser for page tests: a user's session cookie and CSRF token on every request,
/// and redirects after a form post followed as a browser does (303 → GET).
final class PagesBrowser: Sendable {
    let harness: AccessHarness
    let session: (id: String, csrf: String)

    init(role: Role = .admin, environment: [String: String] = [:]) throws {
        harness = try AccessHarness(environment: environment)
        session = try harness.session(try harness.user(role))
    }

    var cookie: (String, String) { ("Cookie", "\(Authentication.sessionCookie)=\(session.id)") }

    func get(_ target: String) -> HTTPResponse {
        harness.send(.get, target, headers: [cookie])
    }

    /// Posts a URL-encoded form with the CSRF token and follows a 303.
    func post(_ target: String, _ fields: [(name: String, value: String)]) -> HTTPResponse {
        let form = [("csrf_token", session.csrf)] + fields.map { ($0.name, $0.value) }
        let response = harness.send(.post, target, headers: [("Content-Type", "application/x-www-form-urlencoded"), cookie],
                                    body: Array(AccessHarness.encode(form).utf8))
        return follow(response)
    }

    /// Posts `multipart/form-data` (with the CSRF token as a part) and follows a 303.
    func postMultipart(_ target: String, _ fields: [(String, String)], file: (name: String, filename: String, bytes: [UInt8])?) -> HTTPResponse {
        let boundary = "----HeraldTest\(UInt32.random(in: 0...UInt32.max))"
        var body: [UInt8] = []
        for (name, value) in [("csrf_token", session.csrf)] + fields {
            body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
        }
        if let file {
            body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(file.name)\"; filename=\"\(file.filename)\"\r\nContent-Type: application/octet-stream\r\n\r\n".utf8)
            body += file.bytes + Array("\r\n".utf8)
        }
        body += Array("--\(boundary)--\r\n".utf8)
        let response = harness.send(.post, target, headers: [("Content-Type", "multipart/form-data; boundary=\(boundary)"), cookie], body: body)
        return follow(response)
    }

    func follow(_ response: HTTPResponse) -> HTTPResponse {
        guard response.status == 303, let location = response.headers["Location"] else { return response }
        return get(location)
    }
}
