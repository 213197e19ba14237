import Foundation
import HeraldCore
import HeraldJSON
import HeraldHTTP
import Testing
@testable import HeraldApp
@testable import HeraldWeb

/// The composer form's parse and render functions, without a server.
@Suite struct CampaignFormTests {
    static func fields(_ overrides: [(String, String)] = []) -> [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = [
            ("name", "Nowruz"), ("title", "نوروز مبارک"), ("body", "۲۰٪ تخفیف تا جمعه"), ("target_kind", "topics"),
            ("topics", "news, offers"), ("schedule_kind", "weekly"), ("schedule_time", "09:30"), ("time_zone", "Asia/Tehran"),
            ("schedule_days", "mon"), ("schedule_days", "thu"), ("variant_key_0", "A"), ("variant_weight_0", "50"),
            ("variant_key_1", "B"), ("variant_weight_1", "50"), ("variant_title_1", "Khabar"), ("holdout_percent", "10"),
            ("color", "#1a73e8"), ("priority", "high"), ("ios_badge", "3"), ("expiry_seconds", "3600"),
            ("data_key_0", "deep_link"), ("data_value_0", "app://sale"),
        ]
        for (name, value) in overrides {
            fields.removeAll { $0.name == name }
            fields.append((name, value))
        }
        return fields
    }

    @Test func formFieldsBecomeTheCampaignAndRenderBackUnchanged() throws {
        let form = CampaignForm(fields: Self.fields())
        let spec = try form.parse().get()
        #expect(spec.notification?.title == "نوروز مبارک")
        #expect(spec.audience == .topics(["news", "offers"]))
        #expect(spec.variants.map(\.key) == ["A", "B"] && spec.variants[1].notification?.title == "Khabar")
        #expect(spec.holdoutPercent == 10)
        #expect(spec.options.iosBadge == 3 && spec.options.priority == .high && spec.options.expirySeconds == 3600)
        #expect(spec.data["deep_link"] == "app://sale")
        #expect(spec.schedule?.toJSON()["days"] == ["mon", "thu"])
        // Stored, reopened for editing and saved again: the same campaign.
        let reopened = CampaignForm(spec: spec, version: 4)
        #expect(try reopened.parse().get() == spec)
        #expect(reopened.version == 4)
    }

    @Test func errorsComeBackBesideTheirFields() {
        let long = String(repeating: "ب", count: 1001 - "نوروز مبارک".count)
        let form = CampaignForm(fields: Self.fields([("body", long), ("topics", "bad topic!"), ("color", "blue"),
                                                     ("ios_badge", "many"), ("variant_weight_1", "half"), ("name", "")]))
        guard case .failure(let errors) = form.parse() else { Issue.record("accepted"); return }
        #expect(errors["body"].first?.contains("at most 1000 characters, found 1001") == true)
        #expect(!errors["topics"].isEmpty)
        #expect(!errors["color"].isEmpty)
        #expect(errors["ios_badge"] == ["must be a whole number"])
        #expect(!errors["variant_weight_1"].isEmpty)
        #expect(!errors["name"].isEmpty)
        #expect(errors["form"].isEmpty)
    }

    @Test func exactlyAThousandCharactersAreAllowedAndTheCounterCountsAsPeopleDo() throws {
        let body = String(repeating: "a", count: 990)
        #expect((try? CampaignForm(fields: Self.fields([("title", "0123456789"), ("body", body)])).parse().get()) != nil)
        guard case .failure(let errors) = CampaignForm(fields: Self.fields([("title", "0123456789x"), ("body", body)])).parse() else {
            Issue.record("accepted 1001 characters"); return
        }
        #expect(errors["body"].first?.contains("found 1001") == true)
        // "👩🏽‍💻" is one character to a person (five scalars), "é" as e + U+0301 one (two scalars).
        let form = CampaignForm(fields: Self.fields([("title", "👩🏽‍💻"), ("body", "e\u{301}")]))
        #expect(ComposerFields(form).characterCount == 2)
    }

    @Test func contractPathsMapToFormFields() {
        #expect(CampaignForm.field(for: "notification.title") == "title")
        #expect(CampaignForm.field(for: "topics[2]") == "topics")
        #expect(CampaignForm.field(for: "variants[1].notification.body") == "variant_body_1")
        #expect(CampaignForm.field(for: "options.ios_badge") == "ios_badge")
        #expect(CampaignForm.field(for: "schedule.time_zone") == "time_zone")
        #expect(CampaignForm.field(for: "data.from") == "data")
        #expect(CampaignForm.field(for: "") == "form")
    }
}

/// The pages through the router, signed in, over a real database.
@Suite(.serialized) final class PagesTests {
    let browser: PagesBrowser

    init() throws { browser = try PagesBrowser() }

    func post(_ path: String, _ fields: [(name: String, value: String)]) -> HTTPResponse {
        browser.post(path, fields)
    }

    func onlyCampaign() async throws -> JSON {
        let list = try await browser.harness.herald.request("GET", "/api/v1/campaigns")
        return try #require(list.json?["items"]?.arrayValue?.first)
    }

    @Test func aFailedSaveReRendersEverythingTypedWithTheErrorBesideTheField() throws {
        let long = String(repeating: "س", count: 1001 - "نوروز مبارک".count)
        let response = post("/campaigns", CampaignFormTests.fields([("body", long)]))
        #expect(response.status == 422)
        let html = response.text
        #expect(html.contains("value=\"نوروز مبارک\""))
        #expect(html.contains(">\(long)</textarea>"))
        #expect(html.contains("value=\"#1a73e8\"") && html.contains("value=\"app://sale\"") && html.contains("value=\"09:30\""))
        #expect(html.contains("<option value=\"Asia/Tehran\" selected>"))
        #expect(html.contains("name=\"csrf_token\" value=\"\(browser.session.csrf)\""))
        // The error sits inside the body field's block, before the next field starts.
        let field = try #require(html.range(of: "id=\"field-body\""))
        let error = try #require(html.range(of: "at most 1000 characters, found 1001", range: field.upperBound..<html.endIndex))
        #expect(!html[field.upperBound..<error.lowerBound].contains("id=\"field-image_file\""))
    }

    @Test func aScriptInTheTitleIsTextOnEveryPage() async throws {
        let script = "<script>alert(1)</script>"
        let saved = post("/campaigns", CampaignFormTests.fields([("title", script), ("name", script)]))
        #expect(saved.status == 200)
        let id = try #require(try await onlyCampaign()["id"]?.stringValue)
        for path in ["/campaigns", "/campaigns/\(id)/edit", "/campaigns/\(id)/review", "/campaigns/\(id)/report"] {
            let page = browser.get(path)
            #expect(page.status == 200, "\(path)")
            #expect(!page.text.contains(script), "\(path) holds the raw script")
            #expect(page.text.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "\(path) does not show the title as text")
            #expect(page.headers["Content-Security-Policy"]?.contains("script-src 'self'") == true)
        }
    }

    @Test func theSecondEditorGetsAConflictPageNotASilentOverwrite() async throws {
        _ = post("/campaigns", CampaignFormTests.fields())
        let id = try #require(try await onlyCampaign()["id"]?.stringValue)
        let first = post("/campaigns/\(id)", CampaignFormTests.fields([("version", "1"), ("title", "Theirs")]))
        #expect(first.status == 200)
        let second = post("/campaigns/\(id)", CampaignFormTests.fields([("version", "1"), ("title", "Mine")]))
        #expect(second.status == 409)
        let html = second.text
        #expect(html.contains("Someone else saved this campaign"))
        #expect(html.contains("Theirs") && html.contains("value=\"Mine\""))
        #expect(html.contains("name=\"version\" value=\"2\""))
        #expect(try await onlyCampaign()["notification"]?["title"] == "Theirs")
        // Saving again from the conflict page (now at version 2) is a deliberate overwrite.
        let again = post("/campaigns/\(id)", CampaignFormTests.fields([("version", "2"), ("title", "Mine")]))
        #expect(again.status == 200)
        #expect(try await onlyCampaign()["notification"]?["title"] == "Mine")
    }

    @Test func theListSearchesByNameAndFiltersByStatus() {
        _ = post("/campaigns", CampaignFormTests.fields([("name", "Spring 100% sale")]))
        _ = post("/campaigns", CampaignFormTests.fields([("name", "Autumn news")]))
        let found = browser.get("/campaigns?q=100%25").text
        #expect(found.contains("Spring 100% sale") && !found.contains("Autumn news"))
        #expect(browser.get("/campaigns?q=_").text.contains("No campaign matches"))
        #expect(browser.get("/campaigns?status=scheduled").text.contains("No campaign matches"))
        #expect(browser.get("/campaigns?status=draft").text.contains("Autumn news"))
    }

    @Test func theListPagesByCursor() async throws {
        for number in 1...21 {
            _ = try await browser.harness.herald.request("POST", "/api/v1/campaigns", json: [
                "name": .string("Campaign \(number)"), "notification": ["title": "Hi"], "topics": ["news"]])
        }
        let first = browser.get("/campaigns").text
        #expect(first.components(separatedBy: "class=\"campaign-name\"").count - 1 == 20)
        #expect(first.contains(">Campaign 21<") && !first.contains(">Campaign 1<"))
        let link = try #require(first.range(of: "href=\"/campaigns?cursor=")).lowerBound
        let href = String(first[first.index(link, offsetBy: 6)...].prefix { $0 != "\"" })
        let second = browser.get(href.replacingOccurrences(of: "&amp;", with: "&")).text
        #expect(second.components(separatedBy: "class=\"campaign-name\"").count - 1 == 1)
        #expect(second.contains(">Campaign 1<") && !second.contains("Older campaigns"))
    }

    @Test func scheduleThenCancelFromTheReviewPage() async throws {
        _ = post("/campaigns", CampaignFormTests.fields())
        let id = try #require(try await onlyCampaign()["id"]?.stringValue)
        let scheduled = post("/campaigns/\(id)/schedule", [("version", "1")])
        #expect(scheduled.status == 200)
        #expect(scheduled.text.contains("Campaign scheduled."))
        #expect(try await onlyCampaign()["status"] == "scheduled")
        let stale = post("/campaigns/\(id)/cancel", [("version", "9")])
        #expect(stale.status == 409)
        // Scheduling changed no content: the version the page was opened at still cancels.
        let cancelled = post("/campaigns/\(id)/cancel", [("version", "1")])
        #expect(cancelled.status == 200)
        #expect(try await onlyCampaign()["status"] == "cancelled")
        // Each page action is in the audit log under the signed-in user.
        let audit = try await browser.harness.herald.request("GET", "/api/v1/audit")
        let actions = (audit.json?["items"]?.arrayValue ?? []).filter { $0["object_id"]?.stringValue == id }.compactMap { $0["action"]?.stringValue }
        #expect(Set(actions) == ["campaign.created", "campaign.scheduled", "campaign.cancelled"])
    }

    @Test func aViewerSeesTheListButNoEditingActions() throws {
        _ = post("/campaigns", CampaignFormTests.fields())
        let viewer = try browser.harness.session(try browser.harness.user(.viewer))
        let list = browser.harness.send(.get, "/campaigns", headers: [("Cookie", "\(Authentication.sessionCookie)=\(viewer.id)")])
        #expect(list.status == 200 && list.text.contains("Nowruz"))
        #expect(!list.text.contains("class=\"button primary\" href=\"/campaigns/new\"") && !list.text.contains(">Delete</button>") && !list.text.contains(">Edit</a>"))
    }
}
