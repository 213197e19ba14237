import HeraldCrypto
import Testing
@testable import HeraldApp
@testable import HeraldWeb

/// The pure parts of accounts: password hashing, roles, `next`, cookies.
struct AccountsUnitTests {
    @Test func aPasswordHashVerifiesOnlyItsPasswordAndDescribesItself() {
        let stored = PasswordHash.make("open sesame 123")
        let parts = stored.split(separator: "$")
        #expect(parts.count == 4)
        #expect(parts[0] == "pbkdf2-sha256")
        #expect(Int(parts[1])! >= 600_000)
        #expect(PasswordHash.verify("open sesame 123", against: stored))
        #expect(!PasswordHash.verify("open sesame 124", against: stored))
        #expect(!PasswordHash.verify("", against: stored))
        // The same password hashes differently each time (a fresh salt).
        #expect(PasswordHash.make("open sesame 123", iterations: 1000) != PasswordHash.make("open sesame 123", iterations: 1000))
        // A stored string that is tampered with or malformed never matches.
        #expect(!PasswordHash.verify("open sesame 123", against: stored.replacingOccurrences(of: "$600000$", with: "$600001$")))
        #expect(!PasswordHash.verify("x", against: "plain-text-password"))
    }

    @Test func rolesAreOrdered() {
        #expect(Role.viewer < .editor && Role.editor < .publisher && Role.publisher < .admin)
        #expect(Role.allCases.sorted() == [.viewer, .editor, .publisher, .admin])
    }

    @Test func nextIsAlwaysALocalPath() {
        #expect(Authentication.safeNext("/campaigns/1?tab=report") == "/campaigns/1?tab=report")
        for hostile in ["//evil.com", "https://evil.com", "/\\evil.com", "evil.com", "", "/a b", "/\u{0}x", "javascript:alert(1)"] {
            #expect(Authentication.safeNext(hostile) == "/", "\(hostile)")
        }
        #expect(Authentication.safeNext(nil) == "/")
    }

    @Test func constantTimeComparison() {
        #expect(ConstantTime.equal("abc", "abc"))
        #expect(!ConstantTime.equal("abc", "abd"))
        #expect(!ConstantTime.equal("abc", "abcd"))
        #expect(SecureRandom.token() != SecureRandom.token())
        #expect(SecureRandom.token().utf8.count == 43)
    }

    @Test func cookiesAndFormFieldsAreRead() throws {
        var headers = HTTPHeadersBuilder.make([("Cookie", "a=1; herald_session=xyz; b=2"),
                                               ("Content-Type", "multipart/form-data; boundary=XX")])
        let body = "--XX\r\nContent-Disposition: form-data; name=\"image\"; filename=\"a.png\"\r\n\r\ncsrf_token\r\n--XX\r\nContent-Disposition: form-data; name=\"csrf_token\"\r\n\r\ntok123\r\n--XX--\r\n"
        let request = HTTPRequestBuilder.make(headers: headers, body: Array(body.utf8))
        #expect(request.cookie("herald_session") == "xyz")
        #expect(request.cookie("missing") == nil)
        #expect(try PostedForm(request)?.value("csrf_token") == "tok123")
        headers = HTTPHeadersBuilder.make([("Authorization", "Bearer hk_abc")])
        #expect(HTTPRequestBuilder.make(headers: headers).bearerToken == "hk_abc")
        headers = HTTPHeadersBuilder.make([("Authorization", "Basic Zm9v")])
        #expect(HTTPRequestBuilder.make(headers: headers).bearerToken == "")
    }
}

import HeraldHTTP

enum HTTPHeadersBuilder {
    static func make(_ fields: [(String, String)]) -> HTTPHeaders {
        var headers = HTTPHeaders()
        for (name, value) in fields { headers.add(name, value) }
        return headers
    }
}

enum HTTPRequestBuilder {
    static func make(headers: HTTPHeaders, body: [UInt8] = []) -> HTTPRequest {
        HTTPRequest(method: .post, target: "/x", headers: headers, body: body, remoteAddress: "[::1]:5000")
    }
}
