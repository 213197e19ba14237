import Foundation
import HeraldCore
import HeraldJSON
import Testing
@testable import HeraldApp

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

    @Test func exactlyAThousandCharactersAsPeopleCountThemIsAllowed() throws {
        // "👩🏽‍💻" is one character to a person (one grapheme cluster) though it is five scalars.
        let body = String(repeating: "👩🏽‍💻", count: 990)
        let form = CampaignForm(fields: Self.fields([("title", "0123456789"), ("body", body)]))
        #expect((try? form.parse().get()) != nil)
        let over = CampaignForm(fields: Self.fields([("title", "0123456789x"), ("body", body)]))
        guard case .failure(let errors) = over.parse() else { Issue.record("accepted 1001"); return }
        #expect(!errors["body"].isEmpty)
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

/// The pages over real sockets and a real database.
@Suite(.serialized) final class PagesTests {
    let herald: TestHerald

    init() throws { herald = try TestHerald() }

    static func encoded(_ fields: [(name: String, value: String)]) -> [UInt8] {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return Array(fields.map { "\($0.name)=\($0.value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }.joined(separator: "&").utf8)
    }

    func post(_ path: String, _ fields: [(name: String, value: String)]) async throws -> TestHerald.Response {
        try await herald.request("POST", path, body: Self.encoded(fields), headers: ["Content-Type": "application/x-www-form-urlencoded"])
    }

    func onlyCampaign() async throws -> JSON {
        let list = try await herald.request("GET", "/api/v1/campaigns")
        return try #require(list.json?["items"]?.arrayValue?.first)
    }

    @Test func aFailedSaveReRendersEverythingTypedWithTheErrorBesideTheField() async throws {
        let long = String(repeating: "س", count: 1001 - "نوروز مبارک".count)
        let response = try await post("/campaigns", CampaignFormTests.fields([("body", long)]))
        #expect(response.status == 422)
        let html = String(decoding: response.data, as: UTF8.self)
        #expect(html.contains("value=\"نوروز مبارک\""))
        #expect(html.contains(">\(long)</textarea>"))
        #expect(html.contains("value=\"#1a73e8\"") && html.contains("value=\"app://sale\"") && html.contains("value=\"09:30\""))
        #expect(html.contains("<option value=\"Asia/Tehran\" selected>"))
        // The error sits inside the body field's block.
        let field = try #require(html.range(of: "id=\"field-body\""))
        let error = try #require(html.range(of: "at most 1000 characters, found 1001", range: field.upperBound..<html.endIndex))
        #expect(html[field.upperBound..<error.lowerBound].contains("id=\"field-image_file\"") == false)
    }

    @Test func aScriptInTheTitleIsTextOnEveryPage() async throws {
        let script = "<script>alert(1)</script>"
        let saved = try await post("/campaigns", CampaignFormTests.fields([("title", script), ("name", script)]))
        #expect(saved.status == 200)
        let id = try #require(try await onlyCampaign()["id"]?.stringValue)
        for path in ["/campaigns", "/campaigns/\(id)/edit", "/campaigns/\(id)/review", "/campaigns/\(id)/report"] {
            let page = try await herald.request("GET", path)
            let html = String(decoding: page.data, as: UTF8.self)
            #expect(page.status == 200, "\(path)")
            #expect(!html.contains(script), "\(path) holds the raw script")
            #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "\(path) does not show the title as text")
            #expect(page.header("Content-Security-Policy")?.contains("script-src 'self'") == true)
        }
    }

    @Test func theSecondEditorGetsAConflictPageNotASilentOverwrite() async throws {
        _ = try await post("/campaigns", CampaignFormTests.fields())
        let campaign = try await onlyCampaign()
        let id = try #require(campaign["id"]?.stringValue)
        let first = try await post("/campaigns/\(id)", CampaignFormTests.fields([("version", "1"), ("title", "Theirs")]))
        #expect(first.status == 200)
        let second = try await post("/campaigns/\(id)", CampaignFormTests.fields([("version", "1"), ("title", "Mine")]))
        #expect(second.status == 409)
        let html = String(decoding: second.data, as: UTF8.self)
        #expect(html.contains("Someone else saved this campaign"))
        #expect(html.contains("Theirs") && html.contains("value=\"Mine\""))
        #expect(html.contains("name=\"version\" value=\"2\""))
        #expect(try await onlyCampaign()["notification"]?["title"] == "Theirs")
        // Saving again from the conflict page (now at version 2) is a deliberate overwrite.
        let again = try await post("/campaigns/\(id)", CampaignFormTests.fields([("version", "2"), ("title", "Mine")]))
        #expect(again.status == 200)
        #expect(try await onlyCampaign()["notification"]?["title"] == "Mine")
    }

    @Test func theListSearchesByNameAndFiltersByStatus() async throws {
        _ = try await post("/campaigns", CampaignFormTests.fields([("name", "Spring 100% sale")]))
        _ = try await post("/campaigns", CampaignFormTests.fields([("name", "Autumn news")]))
        let found = String(decoding: try await herald.request("GET", "/campaigns?q=100%25").data, as: UTF8.self)
        #expect(found.contains("Spring 100% sale") && !found.contains("Autumn news"))
        let wildcard = String(decoding: try await herald.request("GET", "/campaigns?q=_").data, as: UTF8.self)
        #expect(wildcard.contains("No campaign matches"))
        let scheduled = String(decoding: try await herald.request("GET", "/campaigns?status=scheduled").data, as: UTF8.self)
        #expect(scheduled.contains("No campaign matches"))
    }

    @Test func scheduleThenCancelFromTheReviewPage() async throws {
        _ = try await post("/campaigns", CampaignFormTests.fields())
        let id = try #require(try await onlyCampaign()["id"]?.stringValue)
        let scheduled = try await post("/campaigns/\(id)/schedule", [("version", "1")])
        #expect(scheduled.status == 200)
        #expect(String(decoding: scheduled.data, as: UTF8.self).contains("Campaign scheduled."))
        #expect(try await onlyCampaign()["status"] == "scheduled")
        let stale = try await post("/campaigns/\(id)/cancel", [("version", "1")])
        #expect(stale.status == 409)
        let cancelled = try await post("/campaigns/\(id)/cancel", [("version", "2")])
        #expect(cancelled.status == 200)
        #expect(try await onlyCampaign()["status"] == "cancelled")
    }
}
