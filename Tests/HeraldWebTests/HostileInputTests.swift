import Foundation
import HeraldHTTP
import HeraldJSON
import Synchronization
import Testing
@testable import HeraldApp
@testable import HeraldWeb

/// U+0000 cannot be stored in PostgreSQL text. Wherever it arrives — a JSON field, a form field,
/// a search — it is refused (or ignored) with an answer that names it, never a 500 or a 503.
@Suite(.serialized) final class NULCharacterTests {
    let harness: AccessHarness

    init() throws {
        harness = try AccessHarness()
    }

    func postJSON(_ path: String, _ body: String) -> HTTPResponse {
        harness.send(.post, path, headers: [("Authorization", "Bearer \(harness.herald.apiKey)"), ("Content-Type", "application/json")],
                     body: Array(body.utf8))
    }

    @Test func aNULInAJSONFieldIsRefusedWithItsPath() throws {
        let before = try harness.count("campaigns")
        let response = postJSON("/api/v1/campaigns",
                                #"{"name": "Spring\u0000sale", "notification": {"title": "Hi", "body": "There"}, "topics": ["news"]}"#)
        #expect(response.status == 422)
        #expect(response.json?["errors"]?.arrayValue?.first?["path"] == "name")
        #expect(response.json?["errors"]?.arrayValue?.first?["code"] == "nul_character")
        #expect(try harness.count("campaigns") == before)
        let event = postJSON("/api/v1/events", #"{"events": [{"id": "e\u0000", "campaign_id": "00000000-0000-4000-8000-000000000000", "variant": "A", "type": "open"}]}"#)
        #expect(event.status == 422)
        #expect(event.json?["errors"]?.arrayValue?.first?["path"] == "events[0].id")
        let key = postJSON("/api/v1/api-keys", #"{"name": "x\u0000", "role": "viewer"}"#)
        #expect(key.status == 422)
    }

    @Test func aNULInAFormOrASearchIsNotAServerError() throws {
        let signIn = harness.send(.post, "/sign-in", headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Cookie", "herald_signin=t")],
                                  body: Array("csrf_token=t&email=a%00b%40example.com&password=whatever".utf8))
        #expect(signIn.status == 400)
        let user = try harness.user(.viewer)
        let session = try harness.session(user)
        let search = harness.send(.get, "/campaigns?q=%00", headers: [("Cookie", "\(Authentication.sessionCookie)=\(session.id)")])
        #expect(search.status == 200)
    }

    /// Below the faces, the database's refusal becomes a 422-kind error, not an internal one.
    @Test func theServicesTurnTheDatabasesRefusalIntoAnInvalidField() throws {
        let accounts = harness.herald.server.application.accounts
        #expect(throws: AppError.self) {
            try accounts.createKey(name: "nul\u{0}name", role: .viewer, scope: .full, by: Actor(name: "tests"))
        }
    }
}

/// A crafted multipart sign-in (a 30,000-byte boundary, a megabyte of CR) is refused at once by
/// the one form parser every path uses, instead of costing seconds of CPU per request.
@Suite(.serialized) final class CraftedFormTests {
    let harness: AccessHarness

    init() throws {
        harness = try AccessHarness()
    }

    @Test(.timeLimit(.minutes(5)))
    func twentyCraftedMultipartSignInsAreRefusedQuickly() throws {
        let boundary = String(repeating: "b", count: 30_000)
        let body = [UInt8](repeating: 0x0D, count: 1 << 20)
        let signIns = harness
        let clock = ContinuousClock()
        let started = clock.now
        let statuses = Mutex<[Int]>([])
        let group = DispatchGroup()
        for _ in 0..<20 {
            group.enter()
            Thread.detachNewThread {
                let response = signIns.send(.post, "/sign-in", headers: [("Content-Type", "multipart/form-data; boundary=\(boundary)"),
                                                                         ("Cookie", "herald_signin=t")], body: body)
                statuses.withLock { $0.append(response.status) }
                group.leave()
            }
        }
        group.wait()
        let elapsed = started.duration(to: clock.now)
        #expect(statuses.withLock { $0 } == Array(repeating: 400, count: 20))
        // Seconds of CPU each when a second multipart scanner copied at every partial match.
        #expect(elapsed < .seconds(5), "twenty crafted sign-ins took \(elapsed)")
    }
}

/// Bodies the schema does not describe are refused, not half-read.
@Suite(.serialized) final class StrictBodyTests {
    let harness: AccessHarness

    init() throws {
        harness = try AccessHarness()
    }

    func send(_ method: HTTPMethod, _ path: String, _ body: String) -> HTTPResponse {
        harness.send(method, path, headers: [("Authorization", "Bearer \(harness.herald.apiKey)"), ("Content-Type", "application/json")],
                     body: Array(body.utf8))
    }

    @Test func aUserPatchMustBeAnObjectOfKnownFields() throws {
        let user = try harness.user(.viewer)
        #expect(send(.patch, "/api/v1/users/\(user.id)", "[null,null]").status == 422)
        let unknown = send(.patch, "/api/v1/users/\(user.id)", #"{"rol": "admin"}"#)
        #expect(unknown.status == 422)
        #expect(unknown.json?["errors"]?.arrayValue?.first?["path"] == "rol")
        #expect(send(.patch, "/api/v1/users/\(user.id)", #"{"role": "editor"}"#).status == 200)
    }

    @Test func anEventBatchHasNothingBesideItsEvents() {
        let response = send(.post, "/api/v1/events", #"{"events": [{"id": "e1", "campaign_id": "00000000-0000-4000-8000-000000000000", "variant": "A", "type": "open"}], "extra": 1}"#)
        #expect(response.status == 422)
        #expect(response.json?["errors"]?.arrayValue?.contains { $0["path"] == "extra" } == true)
    }
}
