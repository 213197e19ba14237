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
        let spec = try form.parse(words: words).get()
        #expect(spec.notification?.title == "نوروز مبارک")
        #expect(spec.audience == .topics(["news", "offers"]))
        #expect(spec.variants.map(\.key) == ["A", "B"] && spec.variants[1].notification?.title == "Khabar")
        #expect(spec.holdoutPercent == 10)
        #expect(spec.options.iosBadge == 3 && spec.options.priority == .high && spec.options.expirySeconds == 3600)
        #expect(spec.data["deep_link"] == "app://sale")
        #expect(spec.schedule?.toJSON()["days"] == ["mon", "thu"])
        // Stored, reopened for editing and saved again: the same campaign.
        let reopened = CampaignForm(spec: spec, version: 4)
        #expect(try reopened.parse(words: words).get() == spec)
        #expect(reopened.version == 4)
    }

    @Test func errorsComeBackBesideTheirFields() {
        let long = String(repeating: "ب", count: 1001 - "نوروز مبارک".count)
        let form = CampaignForm(fields: Self.fields([("body", long), ("topics", "bad topic!"), ("color", "blue"),
                                                     ("ios_badge", "many"), ("variant_weight_1", "half"), ("name", "")]))
        guard case .failure(let errors) = form.parse(words: words) else { Issue.record("accepted"); return }
        #expect(errors["body"].first?.contains("at most 1000 characters, found 1001") == true)
        #expect(!errors["topics"].isEmpty)
        #expect(!errors["color"].isEmpty)
        #expect(errors["ios_badge"] == ["must be a whole number, such as 3"])
        #expect(!errors["variant_weight_1"].isEmpty)
        #expect(!errors["name"].isEmpty)
        #expect(errors["form"].isEmpty)
    }

    @Test func exactlyAThousandCharactersAreAllowedAndTheCounterCountsAsPeopleDo() throws {
        let body = String(repeating: "a", count: 990)
        #expect((try? CampaignForm(fields: Self.fields([("title", "0123456789"), ("body", body)])).parse(words: words).get()) != nil)
        guard case .failure(let errors) = CampaignForm(fields: Self.fields([("title", "0123456789x"), ("body", body)])).parse(words: words) else {
            Issue.record("accepted 1001 characters"); return
        }
        #expect(errors["body"].first?.contains("found 1001") == true)
        // "👩🏽‍💻" is one character to a person (five scalars), "é" as e + U+0301 one (two scalars).
        let form = CampaignForm(fields: Self.fields([("title", "👩🏽‍💻"), ("body", "e\u{301}")]))
        #expect(BudgetView(form, words: words).characters == 2)
    }

    @Test func contractPathsMapToFormFields() {
        // Rows 0 and 3 are filled, 1 is blank: the contract's variants[1] is the form's row 3.
        let form = CampaignForm(fields: Self.fields([("variant_key_3", "C"), ("variant_weight_3", "10"), ("variant_key_1", ""),
                                                     ("variant_title_1", "")]))
        #expect(form.field(for: "notification.title") == "title")
        #expect(form.field(for: "topics[2]") == "topics")
        #expect(form.field(for: "variants[1].notification.body") == "variant_body_3")
        #expect(form.field(for: "variants[1].data.from") == "variant_data_3")
        #expect(form.field(for: "options.ios_badge") == "ios_badge")
        #expect(form.field(for: "options.overrides.android.ttl") == "overrides")
        #expect(form.field(for: "schedule.time_zone") == "time_zone")
        #expect(form.field(for: "data.from") == "data")
        #expect(form.field(for: "") == "form")
    }

    @Test func topicsAreSeparatedByCommasAndASpaceInsideOneIsAnError() {
        let spaced = CampaignForm(fields: Self.fields([("topics", "news, Bad Topic!")]))
        guard case .failure(let errors) = spaced.parse(words: words) else { Issue.record("accepted a topic with a space"); return }
        let mentionsTheSpace = errors["topics"].contains { $0.contains("“Bad Topic!” has a space") }
        #expect(mentionsTheSpace)
        let lines = CampaignForm(fields: Self.fields([("topics", "news,\r\noffers ,  sale")]))
        let audience = try? lines.parse(words: words).get().audience
        #expect(audience == .topics(["news", "offers", "sale"]))
    }

    @Test func errorsSpeakAsAMarketerDoesNoPatternsNoEmptyQuotes() {
        let form = CampaignForm(fields: Self.fields([("schedule_kind", "daily"), ("schedule_time", ""), ("topics", "news, café"),
                                                     ("analytics_label", "spring sale")]))
        guard case .failure(let errors) = form.parse(words: words) else { Issue.record("accepted"); return }
        #expect(errors["schedule_time"] == ["fill in a local time such as \"09:00\""])
        #expect(errors["topics"] == ["a topic name has letters, digits and - _ . ~ % only, found \"café\""])
        #expect(errors["analytics_label"].first?.hasPrefix("an analytics label has 1 to 50 letters") == true)
        let everything = errors.order.flatMap { errors[$0] }.joined()
        #expect(!everything.contains("^[") && !everything.contains("found \"\""))
    }

    @Test func dataOnlyIsAChoiceThatRendersASilentPushAndSaysWhatWouldBreakIt() throws {
        let fields: [(name: String, value: String)] = [("name", "Sync"), ("message_kind", "data"), ("topics", "news"), ("priority", "high"),
                                                       ("data_key_0", "refresh"), ("data_value_0", "1")]
        let spec = try CampaignForm(fields: fields).parse(words: words).get()
        #expect(spec.notification == nil && spec.data["refresh"] == "1")
        let reopened = CampaignForm(spec: spec, version: 1)
        #expect(reopened.isDataOnly && reopened.dataOnlyWarnings(words).isEmpty && (try? reopened.parse(words: words).get()) == spec)
        let message = try #require(FanOutPlanner.plan(campaign: spec, campaignID: "c", sendTime: Date()).requests.first?.message.json())
        #expect(message["apns"]?["headers"]?["apns-priority"] == "5" && message["apns"]?["payload"]?["aps"]?["content-available"] == 1)
        // A title typed into a data-only message is an error, not silently dropped or sent.
        guard case .failure(let errors) = CampaignForm(fields: fields + [("title", "Hello")]).parse(words: words) else { Issue.record("accepted"); return }
        #expect(errors["message_kind"].first?.hasPrefix("a data-only message shows nothing") == true)
        // Display options and a missing priority are warned about, not refused.
        let warned = CampaignForm(fields: fields.filter { $0.name != "priority" } + [("ios_badge", "2")])
        #expect(warned.dataOnlyWarnings(words).count == 2 && warned.dataOnlyWarnings(words)[1].contains("iOS badge"))
        #expect((try? warned.parse(words: words).get()) != nil)
    }

    @Test func rowsAreAddedAndRemovedWithoutJavaScriptUpToTenVariants() {
        var form = CampaignForm(fields: Self.fields())
        #expect(form.variants.map(\.id) == [0, 1])
        form.apply(.removeVariant(0))
        #expect(form.variants.map(\.key) == ["B"])
        for _ in 0..<9 { let added = form.apply(.addVariant); #expect(added) }
        let eleventh = form.apply(.addVariant)
        #expect(form.variants.count == 10 && !eleventh)
        form.apply(.addData)
        #expect(form.data.count == 2)
        form.apply(.addVariantData(1))
        let rows = form.variants.first { $0.id == 1 }?.data.count
        #expect(rows == 1)
        #expect(CampaignForm.RowEdit(action: "remove_variant:7") == .removeVariant(7) && CampaignForm.RowEdit(action: "save") == nil)
    }

    @Test func aDataKeyGivenTwiceIsAnErrorNotAnOverwrite() {
        let form = CampaignForm(fields: Self.fields([("data_key_1", "deep_link"), ("data_value_1", "app://other")]))
        guard case .failure(let errors) = form.parse(words: words) else { Issue.record("accepted a repeated key"); return }
        #expect(errors["data"] == ["the key “deep_link” is given twice; each key once"])
    }

    @Test func theCounterSpeaksInCharactersAndBytesAndSaysHowMuchToCut() {
        // 961 Persian characters and an image: within 1000 characters, over FCM's 2048 bytes for a topic.
        let text = String(repeating: "س", count: 950)
        func composed(body: String) -> CampaignForm {
            CampaignForm(fields: [("name", "Long"), ("title", "نوروز مبارک"), ("body", body), ("topics", "news"),
                                  ("image_url", "https://cdn.example.com/banners/nowruz-1405.png")])
        }
        let form = composed(body: text)
        let budget = BudgetView(form, words: words)
        #expect(budget.characters == 961 && budget.characterLimit == 1000)
        #expect(budget.bytes > 2048 && budget.byteLimit == 2048 && budget.over)
        guard case .failure(let errors) = form.parse(words: words) else { Issue.record("accepted an oversized message"); return }
        let message = errors["body"].joined()
        #expect(message.contains("bytes") && message.contains(budget.advice), "\(message)")
        // Cutting exactly what the advice says fits; one character fewer does not.
        let cut = Int(budget.advice.split(separator: " ").first { Int($0) != nil } ?? "") ?? 0
        #expect(cut > 0)
        #expect((try? composed(body: String(text.dropLast(cut))).parse(words: words).get()) != nil)
        #expect((try? composed(body: String(text.dropLast(cut - 1))).parse(words: words).get()) == nil)
        // The hint names the limit of the campaign's own audience: 2048 for topics, 4096 for one device.
        #expect(budget.hint.contains("2048 for topics and conditions"), "\(budget.hint)")
        let toDevices = CampaignForm(fields: [("name", "Long"), ("title", "Hi"), ("body", "Text"), ("target_kind", "tokens"),
                                              ("tokens", String(repeating: "k", count: 150))])
        #expect(BudgetView(toDevices, words: words).hint.contains("4096 for a message to one device"), "\(BudgetView(toDevices, words: words).hint)")
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
        #expect(html.contains("name=\"time_zone\" value=\"Asia/Tehran\""))
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
        let review = browser.get("/campaigns/\(id)/review").text
        // The weekly campaign's button names its next time; the other sends now, and asks first.
        #expect(review.contains(">Schedule for ") && review.contains(" Asia/Tehran</button>"))
        #expect(review.contains(">Send now to news, offers</button>") && review.contains("data-confirm=\"“Nowruz” goes to news, offers now."))
        let scheduled = post("/campaigns/\(id)/schedule", [("version", "1")])
        #expect(scheduled.status == 200)
        #expect(scheduled.text.contains("Campaign scheduled."))
        #expect(try await onlyCampaign()["status"] == "scheduled")
        // The list gives the next send time in the campaign's zone.
        #expect(browser.get("/campaigns").text.contains("Next: ") && browser.get("/campaigns").text.contains(" Asia/Tehran</td>"))
        let version = try #require(try await onlyCampaign()["version"]?.intValue)
        // Scheduling changed no content: the version the page was opened at still cancels.
        #expect(version == 1)
        // Cancel asks first: the page says what will happen and nothing changes until confirmed.
        let asked = post("/campaigns/\(id)/cancel", [("version", String(version))])
        #expect(asked.status == 200 && asked.text.contains("Cancel this campaign?") && asked.text.contains("name=\"confirmed\" value=\"yes\""))
        #expect(try await onlyCampaign()["status"] == "scheduled")
        let stale = post("/campaigns/\(id)/cancel", [("version", "9"), ("confirmed", "yes")])
        #expect(stale.status == 409)
        let cancelled = post("/campaigns/\(id)/cancel", FormScraper.fields(asked.text, form: "/cancel\""))
        #expect(cancelled.status == 200 && cancelled.text.contains("Campaign cancelled."))
        #expect(try await onlyCampaign()["status"] == "cancelled")
        // Each page action is in the audit log under the signed-in user.
        let audit = try await browser.harness.herald.request("GET", "/api/v1/audit")
        let actions = (audit.json?["items"]?.arrayValue ?? []).filter { $0["object_id"]?.stringValue == id }.compactMap { $0["action"]?.stringValue }
        #expect(Set(actions) == ["campaign.created", "campaign.scheduled", "campaign.cancelled"])
    }

    @Test func aDraftWithoutAScheduleIsNeverSentBySurprise() async throws {
        _ = post("/campaigns", CampaignFormTests.fields([("schedule_kind", "none")]))
        let id = try #require(try await onlyCampaign()["id"]?.stringValue)
        let review = browser.get("/campaigns/\(id)/review").text
        #expect(!review.contains(">Schedule for") && review.contains(">Send now to news, offers</button>"))
        // A Schedule post (an old page, a script) is a question, not a send.
        for action in ["schedule", "publish"] {
            let asked = post("/campaigns/\(id)/\(action)", [("version", "1")])
            #expect(asked.status == 200 && asked.text.contains("Send now to news, offers</button>"), "\(action)")
            #expect(try await onlyCampaign()["status"] == "draft")
        }
        let runs = try await browser.harness.herald.request("GET", "/api/v1/campaigns/\(id)/runs")
        #expect(runs.json?["items"]?.arrayValue?.isEmpty == true)
        // Delete asks too; confirmed, the draft is gone.
        let asked = post("/campaigns/\(id)/delete", [("version", "1")])
        #expect(asked.text.contains("Delete this draft?"))
        #expect(post("/campaigns/\(id)/delete", [("version", "1"), ("confirmed", "yes")]).text.contains("Draft deleted."))
    }

    @Test func revokingAnAPIKeyAsksFirstAndTheKeyWorksUntilConfirmed() async throws {
        let created = try await browser.harness.herald.request("POST", "/api/v1/api-keys", json: ["name": "my scripts", "role": "editor"])
        let id = try #require(created.json?["id"]?.stringValue)
        let secret = try #require(created.json?["key"]?.stringValue)
        func works() async throws -> Bool {
            try await browser.harness.herald.request("GET", "/api/v1/campaigns", headers: ["Authorization": "Bearer \(secret)"]).status == 200
        }
        let page = browser.get("/api-keys").text
        #expect(page.contains("data-confirm=\"Programs using “my scripts”"))
        let asked = post("/api-keys/\(id)/revoke", [])
        #expect(asked.status == 200 && asked.text.contains("Revoke this API key?") && asked.text.contains(">Revoke my scripts</button>"))
        #expect(try await works())
        #expect(post("/api-keys/\(id)/revoke", [("confirmed", "yes")]).text.contains("Revoked my scripts"))
        #expect(try await !works())
    }

    /// A campaign with every field the contract has: 10 variants with their own text, image and
    /// data, every option, raw overrides and a weekly schedule.
    static let everyField: JSON = [
        "name": "Every field", "notification": ["title": "Hello", "body": "Line one\nLine two", "image": "https://cdn.example.com/a.png"],
        "topics": ["news", "offers"], "data": ["z_last": "1", "deep_link": "app://sale", "multi": "a\nb"],
        "options": [
            "android_channel_id": "sales", "priority": "high", "sound": "chime", "icon": "ic_stat", "web_icon": "https://cdn.example.com/i.png",
            "color": "#1a73e8", "click_action": "OPEN", "ios_badge": 3, "ios_sound": "ping.caf", "ios_category": "SALE",
            "web_link": "https://example.com/sale", "expiry_seconds": 3600, "analytics_label": "spring", "collapse_key": "sale",
            "overrides": ["android": ["notification": ["tag": "sale", "sticky": true]], "apns": ["headers": ["apns-push-type": "alert"]],
                          "webpush": ["headers": ["Urgency": "high"]]],
        ],
        "variants": .array((0..<10).map { index in
            [
                "key": .string("V\(index)"), "weight": .number(Double(index + 1)),
                "notification": ["title": .string("Title \(index)"), "image": .string("https://cdn.example.com/v\(index).png")],
                "data": ["variant": .string("v\(index)"), "extra \(index)": "x"],
            ]
        }),
        "holdout_percent": 5,
        "schedule": ["kind": "weekly", "time": "09:30", "time_zone": "Asia/Dubai", "days": ["mon", "fri"], "until": "2099-12-31"],
    ]

    @Test func aCampaignWithEveryFieldSurvivesTheComposerByteForByte() async throws {
        let created = try await browser.harness.herald.request("POST", "/api/v1/campaigns", json: Self.everyField)
        #expect(created.status == 201, "\(String(decoding: created.data, as: UTF8.self))")
        let id = try #require(created.json?["id"]?.stringValue)
        let before = try await browser.harness.herald.request("GET", "/api/v1/campaigns/\(id)")
        let page = browser.get("/campaigns/\(id)/edit")
        var fields = FormScraper.fields(page.text, form: "campaign-form")
        #expect(fields.filter { $0.name.hasPrefix("variant_key_") && !$0.value.isEmpty }.count == 10)
        // "Save draft" without a change, posted as a browser does (multipart, a few hundred parts):
        // the API's JSON is the same, byte for byte (version and time too).
        let saved = browser.postMultipart("/campaigns/\(id)", fields + [("action", "save")], file: nil)
        #expect(saved.status == 200 && saved.text.contains("Draft saved."))
        let after = try await browser.harness.herald.request("GET", "/api/v1/campaigns/\(id)")
        #expect(after.data == before.data)
        // One field edited: only that field changes (and the version and time).
        fields = fields.map { $0.name == "variant_title_4" ? ($0.name, "Edited") : $0 }
        #expect(post("/campaigns/\(id)", fields + [("action", "save")]).status == 200)
        let edited = try #require(try await browser.harness.herald.request("GET", "/api/v1/campaigns/\(id)").json?.objectValue)
        var expected = try #require(before.json?.objectValue)
        var variants = try #require(expected["variants"]?.arrayValue)
        variants[4] = variants[4].mergePatched(with: ["notification": ["title": "Edited"]])
        expected["variants"] = .array(variants)
        for key in ["version", "updated_at", "updated_by"] { expected[key] = edited[key] }
        #expect(JSON.object(edited) == JSON.object(expected))
        #expect(edited["version"] == .number(2))
    }

    /// Campaigns generated from the schema the API publishes (every property, one campaign per
    /// audience, `SchemaCampaigns`), created over the API, opened in the composer and saved
    /// unchanged as a browser without JavaScript posts the form: the same JSON, byte for byte (so
    /// the same version), and no audit entry. A property the composer has no field for fails here
    /// by name, whenever it was added to the schema.
    @Test(.timeLimit(.minutes(5)))
    func everyCampaignTheSchemaGeneratesSurvivesTheComposerUnchanged() async throws {
        let herald = browser.harness.herald
        let segment = try await herald.request("POST", "/api/v1/segments", json: [
            "name": "Everyone", "rule": ["all": [["field": "platform", "in": ["android", "ios", "web"]]]]])
        let generator = SchemaCampaigns(segmentID: try #require(segment.json?["id"]?.stringValue))
        func lastAudit() async throws -> JSON? { try await herald.request("GET", "/api/v1/audit?limit=1").json?["items"]?.arrayValue?.first?["id"] }
        var stored: [JSON] = []
        #expect(generator.audiences.count == 4)
        for (index, audience) in generator.audiences.enumerated() {
            // What the parser refuses in this combination (a time for a "now" schedule, zones for
            // devices) is left out, path by path, as the API names it.
            var campaign = try generator.campaign(index, audience: audience)
            var created = try await herald.request("POST", "/api/v1/campaigns", json: campaign)
            var refused: [String] = []
            while created.status == 422, refused.count < 40 {
                let paths = created.json?["errors"]?.arrayValue?.compactMap { $0["path"]?.stringValue } ?? []
                let removed = paths.filter { campaign.remove(path: $0) }
                try #require(!removed.isEmpty, "\(audience): refused without a path to leave out: \(String(decoding: created.data, as: UTF8.self))")
                refused += removed
                created = try await herald.request("POST", "/api/v1/campaigns", json: campaign)
            }
            try #require(created.status == 201, "\(audience): \(String(decoding: created.data, as: UTF8.self))")
            let id = try #require(created.json?["id"]?.stringValue)
            let before = try await herald.request("GET", "/api/v1/campaigns/\(id)")
            let auditBefore = try await lastAudit()

            let page = browser.get("/campaigns/\(id)/edit")
            let saved = browser.postMultipart("/campaigns/\(id)", FormScraper.fields(page.text, form: "campaign-form") + [("action", "save")], file: nil)
            #expect(saved.status == 200 && saved.text.contains("Draft saved."), "\(audience): \(saved.status)")
            let after = try await herald.request("GET", "/api/v1/campaigns/\(id)")
            #expect(after.data == before.data, """
                \(audience) campaign changed by an unchanged save (refused first: \(refused)):
                before \(String(decoding: before.data, as: UTF8.self))
                after  \(String(decoding: after.data, as: UTF8.self))
                """)
            #expect(try await lastAudit() == auditBefore, "\(audience): an unchanged save was audited")
            stored.append(try #require(before.json))
        }
        // Between them, the campaigns held every property of the schema.
        for leaf in generator.leaves {
            #expect(stored.contains { !$0.values(at: leaf).isEmpty }, "no accepted campaign holds \(leaf)")
        }
    }

    /// Recipient time as the marketer chose it: the schedule read in each recipient's zone, the
    /// button scheduling "Sat … 09:00 in each recipient's time zone" (not the instant the first zone
    /// in the world gets there), and the first and last waves of the listed zones in the
    /// schedule's zone beside it; the list says the same.
    @Test func recipientTimeReadsAsEachRecipientsOwnTimeWithItsWaves() async throws {
        let json: JSON = ["name": "Weekly", "notification": ["title": "Hi"], "topics": ["news"],
                          "schedule": ["kind": "weekly", "days": ["mon", "wed", "sat"], "time": "09:00", "time_zone": "Asia/Tehran"],
                          "delivery": ["recipient_time": ["past": "skip", "time_zones": ["Asia/Tehran", "Europe/Berlin"]]]]
        let created = try await browser.harness.herald.request("POST", "/api/v1/campaigns", json: json)
        let id = try #require(created.json?["id"]?.stringValue)
        let spec = try CampaignService.validated(json)
        let schedule = try #require(spec.schedule)
        let start = try Arming.firstRun(of: spec, now: Date()).get()
        let local = WallClock.instant(of: RecipientTime.localTime(ofRunAt: start, schedule: schedule), in: .gmt)
        let span = RecipientTime.waveSpan(of: schedule, timeZones: ["Asia/Tehran", "Europe/Berlin"], firstRun: start)
        let tehran = try #require(TimeZone(identifier: "Asia/Tehran"))

        let review = browser.get("/campaigns/\(id)/review").text
        #expect(review.contains("Weekly (Mon, Wed, Sat) at 09:00 in each recipient"))
        #expect(review.contains("Schedule for \(words.dateTime(local, in: .gmt, shownAs: "in each recipient"))"), "\(review.split(separator: "\n").filter { $0.contains("Schedule for") })")
        #expect(review.contains("first wave <strong><time datetime=\"\(ISO8601DateFormatter().string(from: span.first))\" data-local-time>\(words.dateTime(span.first, in: tehran))</time>"))
        #expect(review.contains("last wave <strong>\(words.dateTime(span.last, in: tehran))</strong>"))
        #expect(!review.contains("Schedule for \(words.dateTime(start, in: tehran))"))

        #expect(post("/campaigns/\(id)/schedule", [("version", "1")]).status == 200)
        let list = browser.get("/campaigns").text
        #expect(list.contains(words.dateTime(local, in: .gmt, shownAs: "in each recipient")), "\(list.split(separator: "\n").filter { $0.contains("Weekly") })")
    }

    /// A form that lost its version (a hand-made post, a broken proxy) is refused as such: the
    /// composer and the review page say to reload, and nothing changes. It was once taken as
    /// version 0 and answered "someone saved version 1 since you read it".
    @Test func aFormWithoutItsVersionIsRefusedAsSuchAndChangesNothing() async throws {
        _ = post("/campaigns", CampaignFormTests.fields())
        let before = try await onlyCampaign()
        let id = try #require(before["id"]?.stringValue)
        let edited = post("/campaigns/\(id)", CampaignFormTests.fields([("title", "Changed")]).filter { $0.name != "version" })
        #expect(edited.status == 422 && edited.text.contains("reload the page and make the change again"), "\(edited.status)")
        #expect(edited.text.contains("Changed"), "what was typed is kept")
        let scheduled = post("/campaigns/\(id)/schedule", [])
        #expect(scheduled.status == 422 && scheduled.text.contains("reload the page and try again"), "\(scheduled.status)")
        #expect(try await onlyCampaign() == before)
    }

    @Test func withoutJavaScriptAVariantIsAddedAndRemovedByAButtonAndNothingIsSavedMeanwhile() async throws {
        var fields = CampaignFormTests.fields()
        let added = post("/campaigns", fields + [("action", "add_variant")])
        #expect(added.status == 200 && added.text.contains("id=\"variant_key_2\""))
        #expect(try await browser.harness.herald.request("GET", "/api/v1/campaigns").json?["items"]?.arrayValue?.isEmpty == true)
        fields = FormScraper.fields(added.text, form: "campaign-form")
        let removed = post("/campaigns", fields + [("action", "remove_variant:0")])
        #expect(!removed.text.contains("id=\"variant_key_0\"") && removed.text.contains("value=\"B\""))
    }

    /// A row of the list holds at most four buttons: a draft is edited, duplicated or deleted
    /// (not also cancelled, and it has no report yet); a scheduled one is cancelled, and paused
    /// from its review page.
    @Test func eachListRowOffersAtMostFourActions() async throws {
        let herald = browser.harness.herald
        let draft = try #require(try await herald.request("POST", "/api/v1/campaigns", json: CampaignsAPITests.campaign(name: "Draft one")).json?["id"]?.stringValue)
        func row(_ id: String) -> String {
            let page = browser.get("/campaigns").text
            guard let start = page.range(of: "href=\"/campaigns/\(id)/review\"") else { return "" }
            return String(page[start.lowerBound...]).components(separatedBy: "</tr>")[0]
        }
        let draftRow = row(draft)
        #expect(draftRow.contains(">Edit</a>") && draftRow.contains(">Duplicate</button>") && draftRow.contains(">Delete</button>"))
        #expect(!draftRow.contains(">Cancel</button>") && !draftRow.contains("/report\""), "\(draftRow)")
        var later = CampaignsAPITests.campaign(name: "Later one")
        later = later.mergePatched(with: ["schedule": ["kind": "once", "at": "2099-01-01T09:00", "time_zone": "Asia/Tehran"]])
        let scheduled = try #require(try await herald.request("POST", "/api/v1/campaigns", json: later).json?["id"]?.stringValue)
        #expect(try await herald.request("POST", "/api/v1/campaigns/\(scheduled)/schedule", headers: ["If-Match": "\"1\""]).status == 200)
        let scheduledRow = row(scheduled)
        #expect(scheduledRow.contains(">Cancel</button>") && scheduledRow.contains("/report\"") && !scheduledRow.contains(">Pause</button>"), "\(scheduledRow)")
        #expect(scheduledRow.components(separatedBy: "class=\"button small").count - 1 <= 4)
        #expect(browser.get("/campaigns/\(scheduled)/review").text.contains(">Pause</button>"))
    }

    /// The list says how a campaign did, not only what it sent: its opens and conversions, counted
    /// as the report counts them (a device that opens twice is one open).
    @Test func theListShowsOpensAndConversions() async throws {
        let herald = browser.harness.herald
        let id = try #require(try await herald.request("POST", "/api/v1/campaigns", json: CampaignsAPITests.campaign(name: "Counted")).json?["id"]?.stringValue)
        let events: [JSON] = [
            ["id": "o-1", "campaign_id": .string(id), "variant": "A", "type": "open", "device_token": "device-1"],
            ["id": "o-2", "campaign_id": .string(id), "variant": "A", "type": "open", "device_token": "device-1"],
            ["id": "o-3", "campaign_id": .string(id), "variant": "A", "type": "open", "device_token": "device-2"],
            ["id": "c-1", "campaign_id": .string(id), "variant": "A", "type": "conversion", "device_token": "device-2"],
        ]
        #expect(try await herald.request("POST", "/api/v1/events", json: ["events": .array(events)]).status == 200)
        #expect(browser.get("/campaigns").text.contains("0 requests sent · 2 opens · 1 conversion"))
    }

    /// The review previews a personalised campaign as a recipient reads it: a sample device of its
    /// audience (its name filled in, its language's text), the others a link away; with no device
    /// yet, each variable's default, said so. Never the raw `{{first_name | default: …}}`.
    @Test func thePreviewShowsWhatASampleDeviceReads() async throws {
        let herald = browser.harness.herald
        #expect(try await herald.request("PUT", "/api/v1/devices/a-device", json: ["platform": "ios", "language": "en", "properties": ["first_name": "Sara"]]).status == 201)
        #expect(try await herald.request("PUT", "/api/v1/devices/b-device", json: ["platform": "android", "language": "fa", "properties": ["first_name": "Reza"]]).status == 201)
        func segment(_ name: String, _ platforms: [JSON]) async throws -> String {
            try #require(try await herald.request("POST", "/api/v1/segments", json: [
                "name": .string(name), "rule": ["all": [["field": "platform", "in": .array(platforms)]]]]).json?["id"]?.stringValue)
        }
        func campaign(_ segment: String) async throws -> String {
            try #require(try await herald.request("POST", "/api/v1/campaigns", json: [
                "name": "Personal", "segment": .string(segment),
                "notification": ["title": "Hi {{first_name | default: \"friend\"}}", "body": "A sale",
                                 "translations": ["fa": ["title": "سلام {{first_name | default: \"دوست\"}}", "body": "حراج"]]]]).json?["id"]?.stringValue)
        }
        let everyone = try await campaign(try await segment("Phones", ["ios", "android"]))
        let first = browser.get("/campaigns/\(everyone)/review").text
        #expect(first.contains("Hi Sara") && first.contains("As the device a-device reads it (language en)."), "\(first.components(separatedBy: "preview-title").dropFirst().first?.prefix(600) ?? "")")
        #expect(!first.contains("{{first_name"))
        #expect(first.contains("href=\"/campaigns/\(everyone)/review?sample=1#preview-title\""))
        let second = browser.get("/campaigns/\(everyone)/review?sample=1").text
        #expect(second.contains("سلام Reza") && second.contains("As the device b-device reads it (language fa)."))

        let nobody = try await campaign(try await segment("Web only", ["web"]))
        let defaults = browser.get("/campaigns/\(nobody)/review").text
        #expect(defaults.contains("Hi friend") && defaults.contains("the audience has no device yet"))
        #expect(!defaults.contains("{{first_name"))
    }

    /// A variant's image is uploaded from the composer as the notification's is: stored, its URL
    /// put in that variant; a file that is no image is refused beside that variant's field and
    /// nothing is saved.
    @Test func aVariantsImageIsUploadedFromTheComposer() async throws {
        let png = ImageInspectorTests.png(width: 600, height: 300, total: 4096)
        let saved = browser.postMultipart("/campaigns", CampaignFormTests.fields() + [("action", "save")],
                                          file: ("variant_image_file_1", "b.png", png))
        #expect(saved.status == 200, "\(saved.status)")
        let items = try await browser.harness.herald.request("GET", "/api/v1/campaigns").json?["items"]?.arrayValue ?? []
        let image = try #require(items.first?["variants"]?.arrayValue?[1]["notification"]?["image"]?.stringValue)
        #expect(image.contains("/images/") && image.hasSuffix(".png"), "\(image)")
        #expect(items.first?["variants"]?.arrayValue?[0]["notification"]?["image"] == nil)
        let path = String(image[try #require(image.range(of: "/images/")).lowerBound...])
        #expect(browser.get(path).body == png)

        let refused = browser.postMultipart("/campaigns", CampaignFormTests.fields([("name", "Second")]) + [("action", "save")],
                                            file: ("variant_image_file_0", "notes.txt", Array("not an image".utf8)))
        #expect(refused.status == 422)
        #expect(refused.text.components(separatedBy: "id=\"field-variant_image_0\"").dropFirst().first?.prefix(600).contains("field-error") == true)
        #expect(try await browser.harness.herald.request("GET", "/api/v1/campaigns").json?["items"]?.arrayValue?.count == 1)
    }

    @Test func aViewerSeesTheListButNoEditingActions() throws {
        _ = post("/campaigns", CampaignFormTests.fields())
        let viewer = try browser.harness.session(try browser.harness.user(.viewer))
        let list = browser.harness.send(.get, "/campaigns", headers: [("Cookie", "\(Authentication.sessionCookie)=\(viewer.id)")])
        #expect(list.status == 200 && list.text.contains("Nowruz"))
        #expect(!list.text.contains("class=\"button primary\" href=\"/campaigns/new\"") && !list.text.contains(">Delete</button>") && !list.text.contains(">Edit</a>"))
    }
}
