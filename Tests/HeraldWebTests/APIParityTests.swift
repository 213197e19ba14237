import HeraldTestSupport
import FCMEmulator
import Foundation
import HeraldJSON
import Testing

/// The REST API at parity with the composer (issue 13): past schedules refused on save, an ETag
/// that counts content only, `next_run_at` and `updated_by`, name search and several statuses,
/// events only for variants a campaign has, and one problem+json shape for every refusal.
@Suite(.serialized) final class APIParityTests {
    func count(_ herald: TestHerald) async throws -> Int {
        try await herald.request("GET", "/api/v1/campaigns?limit=100").json?["items"]?.arrayValue?.count ?? -1
    }

    func patch(_ herald: TestHerald, _ id: String, _ body: JSON, version: Int) async throws -> TestHerald.Response {
        try await herald.request("PATCH", "/api/v1/campaigns/\(id)", json: body,
                                 headers: ["If-Match": "\"\(version)\"", "Content-Type": "application/merge-patch+json"])
    }

    @Test func aScheduleInThePastIsRefusedOnCreateReplaceAndPatch() async throws {
        let herald = try TestHerald(environment: ["HERALD_SCHEDULER": "false"])
        let yesterday: JSON = ["kind": "once", "at": .string(utcLocal(Date().addingTimeInterval(-86_400))), "time_zone": "Asia/Dubai"]
        let refused = try await herald.request("POST", "/api/v1/campaigns", json: campaignJSON(name: "Late", topics: ["news"], schedule: yesterday))
        #expect(refused.status == 422)
        let error = try #require(refused.json?["errors"]?.arrayValue?.first)
        #expect(error["path"] == "schedule.at")
        #expect(error["code"] == "in_the_past")
        let message = try #require(error["message"]?.stringValue)
        #expect(message.contains("has already passed in Asia/Dubai") && message.contains("there now"), "\(message)")
        #expect(try await count(herald) == 0)

        let created = try await herald.request("POST", "/api/v1/campaigns", json: campaignJSON(name: "Draft", topics: ["news"]))
        let id = try #require(created.json?["id"]?.stringValue)
        let replaced = try await herald.request("PUT", "/api/v1/campaigns/\(id)", json: campaignJSON(name: "Draft", topics: ["news"], schedule: yesterday),
                                                headers: ["If-Match": "\"1\""])
        #expect(replaced.status == 422)
        #expect(replaced.json?["errors"]?.arrayValue?.first?["path"] == "schedule.at")
        let patched = try await patch(herald, id, ["schedule": yesterday], version: 1)
        #expect(patched.status == 422)
        #expect(patched.json?["errors"]?.arrayValue?.first?["path"] == "schedule.at")
        let unchanged = try await herald.request("GET", "/api/v1/campaigns/\(id)")
        #expect(unchanged.json?["version"] == 1)
        #expect(unchanged.json?["schedule"] == nil)

        let tomorrow: JSON = ["kind": "once", "at": .string(utcLocal(Date().addingTimeInterval(86_400))), "time_zone": "Asia/Dubai"]
        #expect(try await patch(herald, id, ["schedule": tomorrow], version: 1).status == 200)
    }

    @Test(.timeLimit(.minutes(5)))
    func theSchedulersStatusMovesDoNotMakeAnETagStale() async throws {
        let sink = try EmulatorSink()
        let herald = try TestHerald(environment: sink.environment)
        let created = try await herald.request("POST", "/api/v1/campaigns", json: campaignJSON(name: "Now", topics: ["news"]))
        let id = try #require(created.json?["id"]?.stringValue)
        let etag = try #require(created.header("ETag"))
        let scheduled = try await herald.request("POST", "/api/v1/campaigns/\(id)/schedule", headers: ["If-Match": etag])
        #expect(scheduled.status == 200)
        #expect(scheduled.header("ETag") == etag)
        #expect(try await eventually(timeout: waitingLimit) {
            try await herald.request("GET", "/api/v1/campaigns/\(id)").json?["status"] == "sent"
        })
        #expect(try await herald.request("GET", "/api/v1/campaigns/\(id)").header("ETag") == etag)

        // Answered on the merits (it was sent), not 412.
        let cancel = try await herald.request("POST", "/api/v1/campaigns/\(id)/cancel", headers: ["If-Match": etag])
        #expect(cancel.status == 409)
        #expect(cancel.json?["code"] == "not_cancellable")
        let edit = try await patch(herald, id, ["name": "Renamed"], version: 1)
        #expect(edit.status == 409)
        #expect(edit.json?["code"] == "not_editable")
    }

    @Test func everyCampaignSaysWhenItRunsNextAndWhoMadeItsVersion() async throws {
        let herald = try TestHerald(environment: ["HERALD_SCHEDULER": "false"])
        let created = try await herald.request("POST", "/api/v1/campaigns", json: campaignJSON(name: "Weekly", topics: ["news"], schedule: [
            "kind": "weekly", "days": ["mon", "thu"], "time": "09:00", "time_zone": "Asia/Dubai"]))
        let id = try #require(created.json?["id"]?.stringValue)
        #expect(created.json?["next_run_at"] == .null)
        #expect(created.json?["updated_by"] == ["name": "tests", "kind": "api_key"])

        let scheduled = try await herald.request("POST", "/api/v1/campaigns/\(id)/schedule", headers: ["If-Match": "\"1\""])
        let next = try #require(scheduled.json?["next_run_at"]?.stringValue)
        let due = try #require(ISO8601DateFormatter.withFractions.date(from: next))
        #expect(due > Date() && due < Date().addingTimeInterval(5 * 86_400))
        // 09:00 in Dubai (UTC+4) is 05:00 UTC.
        #expect(next.contains("T05:00:00"))
        let listed = try await herald.request("GET", "/api/v1/campaigns")
        #expect(listed.json?["items"]?.arrayValue?.first?["next_run_at"]?.stringValue == next)
    }

    @Test func theListSearchesNamesAndTakesSeveralStatusesAndItsCursorKeepsThem() async throws {
        let herald = try TestHerald(environment: ["HERALD_SCHEDULER": "false"])
        var ids: [String: String] = [:]
        for name in ["Spring sale", "Autumn", "SPRING promo", "Spring 100% off"] {
            ids[name] = try await herald.request("POST", "/api/v1/campaigns", json: campaignJSON(name: name, topics: ["news"])).json?["id"]?.stringValue
        }
        let later: JSON = ["kind": "once", "at": .string(utcLocal(Date().addingTimeInterval(86_400))), "time_zone": "UTC"]
        let autumn = try #require(ids["Autumn"])
        #expect(try await patch(herald, autumn, ["schedule": later], version: 1).status == 200)
        #expect(try await herald.request("POST", "/api/v1/campaigns/\(autumn)/schedule", headers: ["If-Match": "\"2\""]).status == 200)
        let cancelled = try #require(ids["Spring sale"])
        #expect(try await herald.request("POST", "/api/v1/campaigns/\(cancelled)/cancel", headers: ["If-Match": "\"1\""]).status == 200)

        func names(_ query: String) async throws -> [String] {
            let response = try await herald.request("GET", "/api/v1/campaigns?" + query)
            #expect(response.status == 200, "\(query): \(String(decoding: response.data, as: UTF8.self))")
            return response.json?["items"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []
        }
        #expect(try await names("q=spring") == ["Spring 100% off", "SPRING promo", "Spring sale"])
        #expect(try await names("q=100%25") == ["Spring 100% off"])
        #expect(try await names("status=draft&status=scheduled") == ["Spring 100% off", "SPRING promo", "Autumn"])
        #expect(try await names("status=draft,scheduled") == ["Spring 100% off", "SPRING promo", "Autumn"])
        #expect(try await names("status=cancelled,scheduled&q=SPRING") == ["Spring sale"])

        // The cursor continues the same filtered listing, alone or with the same filters.
        let first = try await herald.request("GET", "/api/v1/campaigns?q=spring&status=draft&limit=1")
        #expect(first.json?["items"]?.arrayValue?.map { $0["name"] } == ["Spring 100% off"])
        let cursor = try #require(first.json?["next_cursor"]?.stringValue)
        #expect(try await names("cursor=\(cursor)") == ["SPRING promo"])
        #expect(try await names("cursor=\(cursor)&status=draft&q=spring") == ["SPRING promo"])
        let mixed = try await herald.request("GET", "/api/v1/campaigns?cursor=\(cursor)&status=sent")
        #expect(mixed.status == 400)
        #expect(mixed.json?["errors"]?.arrayValue?.first?["path"] == "cursor")

        let bad = try await herald.request("GET", "/api/v1/campaigns?status=draft,bogus&q=a%00b")
        #expect(bad.status == 400)
        #expect(bad.header("Content-Type") == "application/problem+json")
        #expect(bad.json?["code"] == "invalid_query")
        let paths = bad.json?["errors"]?.arrayValue?.compactMap { $0["path"]?.stringValue }
        #expect(paths == ["status", "q"])
    }

    /// A search is as long as a name may be, 200 characters as a reader counts them: a name of 150
    /// accented letters, each a letter and a combining mark (300 code points), is found by itself.
    @Test func aSearchIsMeasuredInCharactersAsNamesAre() async throws {
        let herald = try TestHerald(environment: ["HERALD_SCHEDULER": "false"])
        let accented = String(repeating: "e\u{301}", count: 150)
        let created = try await herald.request("POST", "/api/v1/campaigns", json: campaignJSON(name: accented, topics: ["news"]))
        #expect(created.status == 201)
        func search(_ text: String) async throws -> TestHerald.Response {
            let encoded = try #require(text.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
            return try await herald.request("GET", "/api/v1/campaigns?q=" + encoded)
        }
        let found = try await search(accented)
        #expect(found.status == 200)
        #expect(found.json?["items"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == [accented])
        let tooLong = try await search(String(repeating: "e\u{301}", count: 201))
        #expect(tooLong.status == 400)
        #expect(tooLong.json?["errors"]?.arrayValue?.first?["code"] == "too_long")
    }

    @Test func anEventForAVariantTheCampaignDoesNotHaveIsRefused() async throws {
        let herald = try TestHerald(environment: ["HERALD_SCHEDULER": "false"])
        let created = try await herald.request("POST", "/api/v1/campaigns", json: [
            "name": "AB", "notification": ["title": "Hi"], "topics": ["news"],
            "variants": [["key": "A", "weight": 50], ["key": "B", "weight": 50, "notification": ["title": "Hello"]]],
        ])
        let id = try #require(created.json?["id"]?.stringValue)
        let refused = try await herald.request("POST", "/api/v1/events", json: ["events": [
            ["id": "e-1", "campaign_id": .string(id), "variant": "A", "type": "open"],
            ["id": "e-2", "campaign_id": .string(id), "variant": "C", "type": "open"],
        ]])
        #expect(refused.status == 422)
        let error = try #require(refused.json?["errors"]?.arrayValue?.first)
        #expect(refused.json?["errors"]?.arrayValue?.count == 1)
        #expect(error["path"] == "events[1].variant")
        #expect(error["code"] == "unknown_variant")
        #expect(error["message"]?.stringValue?.hasSuffix("it has A, B") == true)
        // Refused whole: the good event of the batch was not recorded either.
        #expect(try await herald.request("POST", "/api/v1/events", json: ["id": "e-1", "campaign_id": .string(id), "variant": "A", "type": "open"])
            .json?["recorded"] == 1)
    }

    @Test func everyRefusalIsOneProblemShape() async throws {
        let herald = try TestHerald(environment: ["HERALD_SCHEDULER": "false"])
        let id = try #require(try await herald.request("POST", "/api/v1/campaigns", json: campaignJSON(name: "X", topics: ["news"])).json?["id"]?.stringValue)
        for path in ["/api/v1/audit?limit=0&color=red", "/api/v1/campaigns/\(id)/deliveries?limit=0&color=red",
                     "/api/v1/campaigns?limit=0&color=red"] {
            let response = try await herald.request("GET", path)
            #expect(response.status == 400, "\(path)")
            #expect(response.header("Content-Type") == "application/problem+json")
            #expect(response.json?["code"] == "invalid_query")
            #expect(response.json?["errors"]?.arrayValue?.compactMap { $0["path"]?.stringValue } == ["limit", "color"], "\(path)")
        }
        let nowhere = try await herald.request("GET", "/api/v1/nothing-here")
        #expect(nowhere.status == 404)
        #expect(nowhere.json?["detail"] == "Herald has no page or endpoint at /api/v1/nothing-here.")
        let image = try await herald.request("GET", "/images/\(String(repeating: "0", count: 64)).png", authenticated: false)
        #expect(image.status == 404)
        #expect(image.header("Content-Type") == "application/problem+json")
        #expect(image.json?["code"] == "not_found")
    }
}

/// Each version is credited to the actor that wrote it: a user in the browser, a key over the API,
/// and the conflict page names the key, not the signed-in user.
@Suite(.serialized) final class AttributionTests {
    let browser: PagesBrowser
    var herald: TestHerald { browser.harness.herald }

    init() throws { browser = try PagesBrowser(role: .editor) }

    @Test func aChangeMadeWithAnAPIKeyIsCreditedToTheKeyEverywhere() async throws {
        _ = browser.post("/campaigns", CampaignFormTests.fields())
        let created = try #require(try await herald.request("GET", "/api/v1/campaigns").json?["items"]?.arrayValue?.first)
        let id = try #require(created["id"]?.stringValue)
        #expect(created["updated_by"]?["kind"] == "user")
        #expect(created["updated_by"]?["name"]?.stringValue?.contains("@") == true)

        let patched = try await herald.request("PATCH", "/api/v1/campaigns/\(id)", json: ["name": "Renamed by a script"],
                                               headers: ["If-Match": "\"1\"", "Content-Type": "application/merge-patch+json"])
        #expect(patched.json?["updated_by"] == ["name": "tests", "kind": "api_key"])
        #expect(patched.json?["author"] == created["author"])  // the creator stays the creator

        let conflict = browser.post("/campaigns/\(id)", CampaignFormTests.fields([("version", "1"), ("title", "Mine")]))
        #expect(conflict.status == 409)
        #expect(conflict.text.contains("tests (API key) saved version 2"))
    }
}

/// The review page's test send takes one token per line and names a bad one by its line.
@Suite(.serialized) final class TestSendPageTests {
    let sink: EmulatorSink
    let browser: PagesBrowser
    var herald: TestHerald { browser.harness.herald }

    init() throws {
        sink = try EmulatorSink()
        browser = try PagesBrowser(role: .editor, environment: sink.environment.merging(["HERALD_SCHEDULER": "false"]) { _, new in new })
    }

    @Test func aTokenWithSpacesIsOneBadTokenNamedByItsLine() async throws {
        _ = browser.post("/campaigns", CampaignFormTests.fields())
        let id = try #require(try await herald.request("GET", "/api/v1/campaigns").json?["items"]?.arrayValue?.first?["id"]?.stringValue)
        let refused = browser.post("/campaigns/\(id)/test", [("tokens", "good-token\r\nbad token with spaces\r\n"), ("variant", "A")])
        #expect(refused.status == 422)
        #expect(refused.text.contains("the token on line 2 holds a space"))
        #expect(sink.emulator.sendAttempts().isEmpty)
        let audit = try await herald.request("GET", "/api/v1/audit?limit=5").json?["items"]?.arrayValue ?? []
        #expect(!audit.contains { $0["action"] == "campaign.test_sent" })
    }
}
