import Foundation
import HeraldJSON
import Testing

/// The campaigns REST API against a real PostgreSQL, over real sockets.
@Suite(.serialized) final class CampaignsAPITests {
    let herald: TestHerald

    init() throws {
        herald = try TestHerald()
    }

    static func campaign(name: String = "Spring sale", title: String = "Sale starts now",
                         body: String = "Everything 20% off until Sunday") -> JSON {
        ["name": .string(name), "notification": ["title": .string(title), "body": .string(body)], "topics": ["news"]]
    }

    func count() async throws -> Int {
        let list = try await herald.request("GET", "/api/v1/campaigns?limit=100")
        return list.json?["items"]?.arrayValue?.count ?? -1
    }

    /// The composer's Duplicate over the API: a new draft with the same content named "Copy of …",
    /// whatever the original's status, audited with what it copied; the original unchanged.
    @Test func aCampaignIsDuplicatedAsANewDraft() async throws {
        var original = Self.campaign()
        original = original.mergePatched(with: ["variants": [["key": "A", "weight": 1], ["key": "B", "weight": 1, "notification": ["title": "Other"]]],
                                                "schedule": ["kind": "daily", "time": "09:00", "time_zone": "Asia/Tehran"]])
        let created = try await herald.request("POST", "/api/v1/campaigns", json: original)
        let id = try #require(created.json?["id"]?.stringValue)
        let before = try await herald.request("GET", "/api/v1/campaigns/\(id)")
        let copy = try await herald.request("POST", "/api/v1/campaigns/\(id)/duplicate")
        #expect(copy.status == 201)
        let copyID = try #require(copy.json?["id"]?.stringValue)
        #expect(copyID != id && copy.header("Location") == "/api/v1/campaigns/\(copyID)" && copy.header("ETag") == "\"1\"")
        #expect(copy.json?["name"] == "Copy of Spring sale" && copy.json?["status"] == "draft" && copy.json?["version"] == 1)
        for key in ["notification", "topics", "variants", "schedule"] { #expect(copy.json?[key] == created.json?[key], "\(key)") }
        #expect(try await herald.request("GET", "/api/v1/campaigns/\(id)").data == before.data)
        #expect(try await count() == 2)
        let unknown = try await herald.request("POST", "/api/v1/campaigns/\(UUID().uuidString.lowercased())/duplicate")
        #expect(unknown.status == 404)
    }

    @Test func createReadAndList() async throws {
        let created = try await herald.request("POST", "/api/v1/campaigns", json: Self.campaign())
        #expect(created.status == 201)
        let id = try #require(created.json?["id"]?.stringValue)
        #expect(created.header("Location") == "/api/v1/campaigns/\(id)")
        #expect(created.header("ETag") == "\"1\"")
        #expect(created.json?["status"] == "draft")
        #expect(created.json?["version"] == 1)
        #expect(created.json?["notification"]?["title"] == "Sale starts now")

        let read = try await herald.request("GET", "/api/v1/campaigns/\(id)")
        #expect(read.status == 200)
        #expect(read.json == created.json)
        let notModified = try await herald.request("GET", "/api/v1/campaigns/\(id)", headers: ["If-None-Match": "\"1\""])
        #expect(notModified.status == 304)

        let list = try await herald.request("GET", "/api/v1/campaigns")
        #expect(list.json?["items"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == [id])
    }

    @Test func thousandPersianCharactersAreAcceptedAndOneMoreIsRefusedWithNothingWritten() async throws {
        let title = String(repeating: "س", count: 400)
        let accepted = try await herald.request("POST", "/api/v1/campaigns",
                                                json: Self.campaign(title: title, body: String(repeating: "ل", count: 600)))
        #expect(accepted.status == 201)
        #expect(try await count() == 1)

        let refused = try await herald.request("POST", "/api/v1/campaigns",
                                               json: Self.campaign(title: title, body: String(repeating: "ل", count: 601)))
        #expect(refused.status == 422)
        #expect(refused.header("Content-Type") == "application/problem+json")
        #expect(refused.json?["code"] == "validation_failed")
        let errors = try #require(refused.json?["errors"]?.arrayValue)
        #expect(errors.count == 1)
        #expect(errors.first?["path"]?.stringValue?.hasPrefix("notification") == true)
        #expect(errors.first?["limit"] == 1000)
        #expect(try await count() == 1)
    }

    @Test func everyInvalidFieldIsReportedAtOnce() async throws {
        let bad: JSON = [
            "name": "Broken",
            "notification": ["title": "Hi", "body": "There"],
            "topics": ["news", "not a topic!"],
            "data": ["google.sender": "x"],
            "options": ["color": "red", "web_link": "http://example.com"],
        ]
        let refused = try await herald.request("POST", "/api/v1/campaigns", json: bad)
        #expect(refused.status == 422)
        let paths = Set(refused.json?["errors"]?.arrayValue?.compactMap { $0["path"]?.stringValue } ?? [])
        #expect(paths.isSuperset(of: ["topics[1]", "options.color", "options.web_link"]))
        #expect(paths.contains { $0.hasPrefix("data") })
        #expect(try await count() == 0)
    }

    /// A body that creates a campaign or a send says what it holds: a null is refused at its path
    /// (the OpenAPI document takes none), where stored content read it as absent (schemathesis
    /// found a one-call send with `"title": null` accepted).
    @Test func aNullInABodyThatCreatesIsRefusedAtItsPath() async throws {
        let campaign: JSON = ["name": "Nulls", "notification": ["title": .null, "body": "There"], "topics": ["news"]]
        let refused = try await herald.request("POST", "/api/v1/campaigns", json: campaign)
        #expect(refused.status == 422)
        #expect(refused.json?["errors"]?.arrayValue?.map { "\($0["path"]?.stringValue ?? "") \($0["code"]?.stringValue ?? "")" } == ["notification.title null_value"])
        #expect(try await count() == 0)
        let send = try await herald.request("POST", "/api/v1/sends", json: [
            "message": ["notification": ["title": .null, "body": "Receipt"]], "to": [["token": "null-token-1"]]], headers: ["Idempotency-Key": "nulls"])
        #expect(send.status == 422 && send.json?["errors"]?.arrayValue?.first?["path"] == "message.notification.title", "\(send.json as Any)")
    }

    @Test func malformedJSONSaysWhere() async throws {
        let response = try await herald.request("POST", "/api/v1/campaigns", body: Array("{\n  \"name\": \"x\",\n}".utf8),
                                                headers: ["Content-Type": "application/json"])
        #expect(response.status == 400)
        #expect(response.json?["code"] == "malformed_json")
        #expect(response.json?["line"] == 3)
        #expect(response.json?["column"] == 1)
    }

    @Test func updatesNeedTheCurrentVersion() async throws {
        let created = try await herald.request("POST", "/api/v1/campaigns", json: Self.campaign())
        let id = try #require(created.json?["id"]?.stringValue)
        let path = "/api/v1/campaigns/\(id)"

        let missing = try await herald.request("PUT", path, json: Self.campaign(name: "Renamed"))
        #expect(missing.status == 428)

        let updated = try await herald.request("PUT", path, json: Self.campaign(name: "Renamed"), headers: ["If-Match": "\"1\""])
        #expect(updated.status == 200)
        #expect(updated.json?["name"] == "Renamed")
        #expect(updated.header("ETag") == "\"2\"")

        let stale = try await herald.request("PUT", path, json: Self.campaign(name: "Lost"), headers: ["If-Match": "\"1\""])
        #expect(stale.status == 412)
        #expect(stale.json?["current_version"] == 2)
        #expect(stale.header("ETag") == "\"2\"")

        let patched = try await herald.request("PATCH", path, json: ["name": "Patched", "data": ["k": "v"]],
                                               headers: ["If-Match": "\"2\""])
        #expect(patched.status == 200)
        #expect(patched.json?["name"] == "Patched")
        #expect(patched.json?["data"]?["k"] == "v")
        #expect(patched.json?["notification"]?["title"] == "Sale starts now")
    }

    @Test func ofTwoConcurrentUpdatesWithTheSameVersionExactlyOneWins() async throws {
        for round in 0..<5 {
            let created = try await herald.request("POST", "/api/v1/campaigns", json: Self.campaign())
            let id = try #require(created.json?["id"]?.stringValue)
            let herald = self.herald
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for writer in 0..<2 {
                    group.addTask {
                        try await herald.request("PUT", "/api/v1/campaigns/\(id)",
                                                      json: Self.campaign(name: "Writer \(writer) round \(round)"),
                                                      headers: ["If-Match": "\"1\""]).status
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.sorted() == [200, 412], "round \(round)")
            let final = try await herald.request("GET", "/api/v1/campaigns/\(id)")
            #expect(final.json?["version"] == 2)
        }
    }

    @Test func aRetriedCreateWithTheSameIdempotencyKeyReturnsTheFirstResult() async throws {
        let key = UUID().uuidString
        let first = try await herald.request("POST", "/api/v1/campaigns", json: Self.campaign(), headers: ["Idempotency-Key": key])
        let second = try await herald.request("POST", "/api/v1/campaigns", json: Self.campaign(), headers: ["Idempotency-Key": key])
        #expect(first.status == 201)
        #expect(second.status == 201)
        #expect(second.json?["id"] == first.json?["id"])
        #expect(second.header("Idempotent-Replayed") == "true")
        #expect(try await count() == 1)

        let reused = try await herald.request("POST", "/api/v1/campaigns", json: Self.campaign(name: "Other"),
                                              headers: ["Idempotency-Key": key])
        #expect(reused.status == 422)
        #expect(reused.json?["code"] == "idempotency_key_reused")
        #expect(try await count() == 1)
    }

    @Test func onlyDraftsAreDeletedAndOnlyAtTheCurrentVersion() async throws {
        let created = try await herald.request("POST", "/api/v1/campaigns", json: Self.campaign())
        let id = try #require(created.json?["id"]?.stringValue)
        #expect(try await herald.request("DELETE", "/api/v1/campaigns/\(id)").status == 428)
        #expect(try await herald.request("DELETE", "/api/v1/campaigns/\(id)", headers: ["If-Match": "\"7\""]).status == 412)
        #expect(try await herald.request("DELETE", "/api/v1/campaigns/\(id)", headers: ["If-Match": "\"1\""]).status == 204)
        #expect(try await herald.request("GET", "/api/v1/campaigns/\(id)").status == 404)
        #expect(try await herald.request("GET", "/api/v1/campaigns/not-a-uuid").status == 404)
    }

    @Test func listingPagesNewestFirstWithACursor() async throws {
        var ids: [String] = []
        for index in 0..<5 {
            let created = try await herald.request("POST", "/api/v1/campaigns", json: Self.campaign(name: "C\(index)"))
            ids.append(try #require(created.json?["id"]?.stringValue))
        }
        var seen: [String] = []
        var path = "/api/v1/campaigns?limit=2"
        var pages = 0
        while pages < 10 {
            let page = try await herald.request("GET", path)
            #expect(page.status == 200)
            seen += page.json?["items"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
            pages += 1
            guard let cursor = page.json?["next_cursor"]?.stringValue else { break }
            path = "/api/v1/campaigns?limit=2&cursor=\(cursor)"
        }
        #expect(pages == 3)
        #expect(seen == Array(ids.reversed()))

        #expect(try await herald.request("GET", "/api/v1/campaigns?status=draft").json?["items"]?.arrayValue?.count == 5)
        #expect(try await herald.request("GET", "/api/v1/campaigns?status=sent").json?["items"]?.arrayValue?.count == 0)
        let bad = try await herald.request("GET", "/api/v1/campaigns?status=bogus&limit=0&cursor=zzz")
        #expect(bad.status == 400)
        #expect(bad.json?["errors"]?.arrayValue?.count == 3)
    }

    @Test func healthAndUnknownRoutes() async throws {
        #expect(try await herald.request("GET", "/healthz").status == 200)
        #expect(try await herald.request("GET", "/readyz").json?["database"] == "ok")
        let missing = try await herald.request("GET", "/api/v1/nothing-here")
        #expect(missing.status == 404)
        let wrongMethod = try await herald.request("POST", "/healthz")
        #expect(wrongMethod.status == 405)
        #expect(wrongMethod.header("Allow")?.contains("GET") == true)
    }
}
