import HeraldCore
import HeraldTestSupport
import HeraldHTTP
import HeraldJSON
import Testing
@testable import HeraldApp
@testable import HeraldWeb

/// The devices and segments pages, as a marketer uses them: import a CSV, see the counts, build a
/// segment from rows, count it before saving, and target it from the composer.
@Suite(.serialized) struct AudiencePagesTests {
    static func text(_ response: HTTPResponse) -> String { String(decoding: response.body, as: UTF8.self) }

    /// A campaign to a segment says whom it reaches wherever it is shown: the list, the review,
    /// the send-now button and its confirmation, and the report ("2 devices in “Persian & Hebrew
    /// VIPs”", not "a segment of devices"); in Persian too, and a deleted segment is said to be one.
    @Test func aSegmentCampaignNamesItsSegmentAndReachEverywhere() async throws {
        let browser = try PagesBrowser(role: .admin)
        let herald = browser.harness.herald
        for (token, language) in [("vip-1", "fa"), ("vip-2", "he"), ("other-1", "en")] {
            #expect(try await herald.request("PUT", "/api/v1/devices/\(token)", json: ["platform": "android", "language": .string(language)]).status == 201)
        }
        let segment = try #require(try await herald.request("POST", "/api/v1/segments", json: [
            "name": "Persian & Hebrew VIPs", "rule": ["all": [["field": "language", "in": ["fa", "he"]]]]]).json?["id"]?.stringValue)
        let created = try await herald.request("POST", "/api/v1/campaigns", json: ["name": "VIP sale", "notification": ["title": "Hi"], "segment": .string(segment)])
        let id = try #require(created.json?["id"]?.stringValue)
        let named = "2 devices in “Persian &amp; Hebrew VIPs”"
        #expect(Self.text(browser.get("/campaigns")).contains(named))
        let review = Self.text(browser.get("/campaigns/\(id)/review"))
        #expect(review.contains(named) && review.contains("Send now to \(named)"), "\(review.split(separator: "\n").filter { $0.contains("Send now") })")
        #expect(!review.contains("a segment of devices"))
        let confirm = Self.text(browser.post("/campaigns/\(id)/publish", [("version", "1")]))
        #expect(confirm.contains(named))
        #expect(Self.text(browser.get("/campaigns/\(id)/report")).contains(named))
        // The API's reads name it too (what PUT takes is unchanged).
        let summary = try await herald.request("GET", "/api/v1/campaigns/\(id)").json?["segment_summary"]
        #expect(summary?["name"] == "Persian & Hebrew VIPs" && summary?["devices"] == 2, "\(summary ?? .null)")
        #expect(summary?["devices_counted_at"]?.stringValue?.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/) != nil,
                "the count's time is missing: \(summary ?? .null)")
        #expect(try await herald.request("GET", "/api/v1/campaigns").json?["items"]?.arrayValue?.first?["segment_summary"]?["devices"] == 2)

        _ = browser.post("/language", [("language", "fa"), ("next", "/campaigns")])
        let persian = Self.text(browser.get("/campaigns"))
        #expect(persian.contains("۲ دستگاه در «\u{2068}Persian &amp; Hebrew VIPs\u{2069}»"), "\(persian.split(separator: "\n").filter { $0.contains("VIP") })")

        // Deleted once the campaign was cancelled: the campaign says so, not a wrong name or count.
        _ = browser.post("/language", [("language", "en"), ("next", "/campaigns")])
        #expect(try await herald.request("POST", "/api/v1/campaigns/\(id)/cancel", headers: ["If-Match": "\"1\""]).status == 200)
        #expect(try await herald.request("DELETE", "/api/v1/segments/\(segment)").status == 204)
        #expect(Self.text(browser.get("/campaigns")).contains("a segment that was deleted"))
        #expect(try await herald.request("GET", "/api/v1/campaigns/\(id)").json?["segment_summary"] == ["name": .null, "devices": .null, "devices_counted_at": .null])
    }

    /// A viewer reads a device's topics from the devices list: what FCM lists, with since when, in
    /// the page's language; an unknown device is a 404 page.
    @Test(.timeLimit(.minutes(2)))
    func aViewerReadsADevicesTopicsFromTheList() async throws {
        let sink = try EmulatorSink()
        let browser = try PagesBrowser(role: .viewer, environment: sink.environment)
        let herald = browser.harness.herald
        let fid = "c" + String(repeating: "0", count: 20) + "7"
        #expect(try await herald.request("PUT", "/api/v1/devices/\(fid)", json: ["platform": "android", "kind": "fid"]).status == 201)
        for topic in ["news", "tz.Asia.Tehran"] {
            #expect(try await herald.request("POST", "/api/v1/topic-subscriptions", json: ["topic": .string(topic), "tokens": [.string(fid)]]).status == 200)
        }
        #expect(Self.text(browser.get("/devices")).contains("<a href=\"/devices/\(fid)/topics\">Topics</a>"))
        let page = browser.get("/devices/\(fid)/topics")
        #expect(page.status == 200)
        let text = Self.text(page)
        #expect(text.contains("<code dir=\"ltr\">news</code>") && text.contains("<code dir=\"ltr\">tz.Asia.Tehran</code>"))
        #expect(text.contains("Subscribed since") && text.contains(" UTC</time>"))
        #expect(browser.get("/devices/c000000000000000000099/topics").status == 404)
        _ = browser.post("/language", [("language", "fa"), ("next", "/devices")])
        #expect(Self.text(browser.get("/devices/\(fid)/topics")).contains("موضوع‌های یک دستگاه"))
    }

    /// The report gives a segment's reach when its last run was planned beside its reach now,
    /// once they differ (devices registered since).
    @Test(.timeLimit(.minutes(5)))
    func theReportSaysTheReachAtPlanningWhenItDiffersFromNow() async throws {
        let sink = try EmulatorSink()
        let browser = try PagesBrowser(role: .admin, environment: sink.environment)
        let herald = browser.harness.herald
        for token in ["p-1", "p-2"] {
            #expect(try await herald.request("PUT", "/api/v1/devices/\(token)", json: ["platform": "android", "language": "fa"]).status == 201)
        }
        let segment = try #require(try await herald.request("POST", "/api/v1/segments", json: [
            "name": "Persian", "rule": ["all": [["field": "language", "equals": "fa"]]]]).json?["id"]?.stringValue)
        let id = try #require(try await herald.request("POST", "/api/v1/campaigns", json: [
            "name": "Now", "notification": ["title": "Hi"], "segment": .string(segment), "schedule": ["kind": "now"]]).json?["id"]?.stringValue)
        #expect(try await herald.request("POST", "/api/v1/campaigns/\(id)/schedule", headers: ["If-Match": "\"1\""]).status == 200)
        #expect(try await eventually(timeout: waitingLimit) {
            try await herald.request("GET", "/api/v1/campaigns/\(id)").json?["status"] == "sent"
        })
        #expect(!Self.text(browser.get("/campaigns/\(id)/report")).contains("when its last run was planned"))
        #expect(try await herald.request("PUT", "/api/v1/devices/p-3", json: ["platform": "ios", "language": "fa"]).status == 201)
        // Pages show the segment's kept count (counted again in the background, or here by a save).
        #expect(Self.text(browser.get("/campaigns/\(id)/report")).contains("2 devices in “Persian”"))
        #expect(try await herald.request("PUT", "/api/v1/segments/\(segment)", json: [
            "name": "Persian", "rule": ["all": [["field": "language", "equals": "fa"]]]]).status == 200)
        let report = Self.text(browser.get("/campaigns/\(id)/report"))
        #expect(report.contains("3 devices in “Persian”") && report.contains("(2 devices when its last run was planned)"),
                "\(report.components(separatedBy: "<dt>Targets").last?.prefix(300) ?? "")")
    }

    @Test func aCSVImportedFromThePageShowsItsReportAndTheCounts() throws {
        let browser = try PagesBrowser(role: .editor)
        let csv = "token,platform,language,country,first_name\ntok-a,android,fa-IR,IR,Sara\ntok-b,ios,he,IL,Noa\nbad token,android,fa,IR,X\n"
        let page = Self.text(browser.postMultipart("/devices/import", [], file: ("file", "devices.csv", Array(csv.utf8))))
        #expect(page.contains("3 rows read: 2 devices added, 0 updated, 1 refused."))
        #expect(page.contains("holds a space"))
        let devices = Self.text(browser.get("/devices"))
        #expect(devices.contains("<dt>Active</dt><dd>2</dd>"))
        #expect(devices.contains("tok-a") && devices.contains("tok-b"))
        // Active devices carry no refusal reason, not even empty parentheses.
        #expect(!devices.contains(#"dir="ltr">()</span>"#))
        let empty = browser.postMultipart("/devices/import", [], file: nil)
        #expect(empty.status == 422 && Self.text(empty).contains("Choose a CSV file"))
    }

    /// The page's script sends the file as the body itself, which is read as it arrives: a file
    /// over the body limit imports whole (over a real socket, as a browser sends it). The session's
    /// CSRF token is still required, and a refusal stores nothing.
    @Test func aFileTheScriptSendsWholeImportsAtAnySizeWithTheSessionsToken() async throws {
        let browser = try PagesBrowser(role: .editor)
        let herald = browser.harness.herald
        var csv = "token,platform,country\n"
        for n in 1...8_000 { csv += "page-import-\(n)-\(String(repeating: "x", count: 160)),ios,IL\n" }
        #expect(csv.utf8.count > 1 << 20)
        let cookie = "\(Authentication.sessionCookie)=\(browser.session.id)"
        let forged = try await herald.request("POST", "/devices/import", body: Array(csv.utf8),
                                              headers: ["Content-Type": "text/csv", "Cookie": cookie], authenticated: false)
        #expect(forged.status == 403)
        #expect(try herald.server.application.devices.counts().active == 0)

        let imported = try await herald.request("POST", "/devices/import", body: Array(csv.utf8),
                                                headers: ["Content-Type": "text/csv", "Cookie": cookie, "X-CSRF-Token": browser.session.csrf],
                                                authenticated: false)
        let page = String(decoding: imported.data, as: UTF8.self)
        #expect(imported.status == 200 && page.contains("8000 rows read: 8000 devices added, 0 updated, 0 refused."), "\(page.split(separator: "\n").filter { $0.contains("notice") })")
        #expect(try herald.server.application.devices.counts().active == 8_000)
        // The page that sends it that way: the form names the script's texts, and the script is there.
        let devices = Self.text(browser.get("/devices"))
        #expect(devices.contains(#"data-stream-import data-busy="Importing…""#) && devices.contains(#"<script src="/static/device-import.js" defer>"#))
    }

    /// The editor as a marketer builds a segment: it starts with one row; rows are added and
    /// removed by buttons (nothing saved meanwhile); a row asks for a property name only when it
    /// tests a property; the registry's own values are suggested; the reach is counted as the
    /// rule changes (the script's route); and the list says which campaigns use each segment.
    @Test func segmentsAreBuiltRowByRowWithTheirReachAndUsage() async throws {
        let browser = try PagesBrowser(role: .editor)
        let devices = browser.harness.herald.server.application.devices
        _ = try devices.register(token: "fa-1", document: ["platform": "android", "language": "fa", "country": "IR"])
        _ = try devices.register(token: "he-1", document: ["platform": "ios", "language": "he", "country": "IL"])
        let fresh = Self.text(browser.get("/segments"))
        #expect(fresh.contains(#"name="field_0""#) && !fresh.contains(#"name="field_1""#))
        #expect(fresh.contains(#"<a href="/segments">Segments</a>"#))
        // The rule as JSON is there for rules the rows cannot say, closed while it holds none.
        #expect(fresh.contains("<details><summary>Rule as JSON"))
        #expect(fresh.contains(#"<datalist id="segment-values-language"><option value="fa"></option><option value="he"></option></datalist>"#)
                || fresh.contains(#"<datalist id="segment-values-language"><option value="he"></option><option value="fa"></option></datalist>"#))

        let rows: [(name: String, value: String)] = [("name", "Two"), ("combine", "any"), ("field_0", "language"), ("op_0", "is"), ("value_0", "fa")]
        let added = Self.text(browser.post("/segments", rows + [("action", "add_row")]))
        #expect(added.contains(#"name="field_1""#) && added.contains(#"name="value_0" type="text" value="fa""#))
        #expect(try browser.harness.herald.server.application.segments.list().isEmpty)
        // A language row hides the property name; the blank row offers it.
        #expect(added.contains(#"name="name_0" type="text" value="" dir="ltr""#) && added.components(separatedBy: "data-condition-name hidden").count == 2)
        let two = rows + [("field_1", "country"), ("op_1", "is"), ("value_1", "IL")]
        let removed = Self.text(browser.post("/segments", two + [("action", "remove_row:0")]))
        #expect(removed.contains(#"name="value_0" type="text" value="IL""#) && !removed.contains(#"type="text" value="fa""#) && !removed.contains(#"name="field_1""#))

        let live = browser.post("/segment-editor/reach", two)
        #expect(live.status == 200)
        let answer = try JSON.parse(live.text)
        #expect(answer["devices"] == 2 && answer["text"] == "2 active devices match now.", "\(live.text)")
        let wrong = try JSON.parse(browser.post("/segment-editor/reach", [("field_0", "app_version"), ("op_0", "at_least"), ("value_0", "beta")]).text)
        #expect(wrong["devices"] == .null && wrong["text"]?.stringValue?.contains("beta") == true, "\(wrong)")

        #expect(browser.post("/segments", two + [("action", "save")]).status == 200)
        let segment = try #require(try browser.harness.herald.server.application.segments.list().first)
        let created = try await browser.harness.herald.request("POST", "/api/v1/campaigns", json: [
            "name": "Spring", "notification": ["title": "Hi"], "segment": .string(segment.id.description)])
        #expect(created.status == 201)
        let list = Self.text(browser.get("/segments"))
        #expect(list.contains("<td data-label=\"Used by\">Spring</td>"), "\(list.components(separatedBy: "Used by").last?.prefix(200) ?? "")")
    }

    /// "Is not", on a property and on a field: counted as the send would choose (a device without
    /// the property is not counted), saved as a list of one value not to be in, and shown again
    /// as "is not" rows.
    @Test func anIsNotRowIsCountedSavedAndShownAgain() throws {
        let browser = try PagesBrowser(role: .editor)
        let devices = browser.harness.herald.server.application.devices
        _ = try devices.register(token: "not-1", document: ["platform": "android", "country": "IR", "properties": ["city": "Tehran"]])
        _ = try devices.register(token: "not-2", document: ["platform": "android", "country": "IR", "properties": ["city": "Shiraz"]])
        _ = try devices.register(token: "not-3", document: ["platform": "android", "country": "DE", "properties": ["city": "Berlin"]])
        _ = try devices.register(token: "not-4", document: ["platform": "android", "country": "IR"])
        let rows: [(name: String, value: String)] = [("name", "Not Tehran"), ("combine", "all"),
                                                     ("field_0", "property"), ("name_0", "city"), ("op_0", "is_not"), ("value_0", "Tehran"),
                                                     ("field_1", "country"), ("op_1", "is_not"), ("value_1", "de")]
        let live = try JSON.parse(browser.post("/segment-editor/reach", rows).text)
        #expect(live["devices"] == 1, "\(live)")
        #expect(browser.post("/segments", rows + [("action", "save")]).status == 200)
        let segment = try #require(try browser.harness.herald.server.application.segments.list().first)
        #expect(segment.rule.toJSON() == ["all": [["property": "city", "not_in": ["Tehran"]], ["field": "country", "not_in": ["DE"]]]])
        let shown = Self.text(browser.get("/segments/\(segment.id)"))
        #expect(shown.contains(#"<option value="is_not" selected>is not</option>"#), "\(shown.components(separatedBy: "op_0").last?.prefix(400) ?? "")")
        #expect(shown.contains(#"name="value_0" type="text" value="Tehran""#) && shown.contains(#"name="value_1" type="text" value="DE""#))
    }

    /// Groups: "(language fa or he) and country IR" built from rows in two groups, counted and
    /// saved as that rule, shown again in its groups, and saved again unchanged; a group is
    /// added by its button and a bad row in a group keeps its error beside it.
    @Test func aSegmentOfTwoGroupsIsBuiltSavedAndShownInItsGroups() throws {
        let browser = try PagesBrowser(role: .editor)
        let devices = browser.harness.herald.server.application.devices
        _ = try devices.register(token: "g-fa", document: ["platform": "android", "language": "fa", "country": "IR"])
        _ = try devices.register(token: "g-he", document: ["platform": "android", "language": "he", "country": "IR"])
        _ = try devices.register(token: "g-he-il", document: ["platform": "android", "language": "he", "country": "IL"])
        _ = try devices.register(token: "g-en", document: ["platform": "android", "language": "en", "country": "IR"])
        let added = Self.text(browser.post("/segments", [("name", "Groups"), ("field_0", "language"), ("action", "add_group")]))
        #expect(added.contains(#"id="group-1""#) && added.contains(#"name="group_1" value="1""#) && added.contains(#"name="group_combine_1""#))
        let fields: [(name: String, value: String)] = [
            ("name", "Persian or Hebrew in Iran"), ("combine", "all"),
            ("group_combine_0", "any"), ("field_0", "language"), ("op_0", "is"), ("value_0", "fa"), ("group_0", "0"),
            ("field_1", "language"), ("op_1", "is"), ("value_1", "he"), ("group_1", "0"),
            ("group_combine_1", "all"), ("field_2", "country"), ("op_2", "is"), ("value_2", "IR"), ("group_2", "1"),
        ]
        #expect(Self.text(browser.post("/segments", fields + [("action", "count")])).contains("2 active devices match now."))
        #expect(browser.post("/segments", fields + [("action", "save")]).status == 200)
        let segment = try #require(try browser.harness.herald.server.application.segments.list().first)
        #expect(segment.rule.toJSON() == ["all": [["any": [["field": "language", "equals": "fa"], ["field": "language", "equals": "he"]]],
                                                  ["field": "country", "equals": "IR"]]])
        let page = Self.text(browser.get("/segments/\(segment.id)"))
        #expect(page.contains(#"name="group_combine_0" value="any" checked"#) && page.contains(#"name="group_2" value="1""#))
        #expect(!page.contains(#"<textarea id="rule-json" name="rule_json" rows="6" dir="ltr" aria-describedby="rule-json-error">{"#))
        // Saved again from what the page shows: the same rule.
        let again = FormScraper.fields(page, form: "/segments/\(segment.id)\"")
        #expect(browser.post("/segments/\(segment.id)", again + [("action", "save")]).status == 200)
        #expect(try browser.harness.herald.server.application.segments.get(segment.id).rule == segment.rule)

        var broken = fields
        broken[broken.firstIndex { $0.name == "value_2" }!] = ("value_2", "")
        broken.append(("field_3", "app_version")); broken.append(("op_3", "at_least")); broken.append(("value_3", "beta")); broken.append(("group_3", "1"))
        let refused = browser.post("/segments", broken.map { $0.name == "name" ? ("name", "Broken groups") : $0 } + [("action", "save")])
        #expect(refused.status == 422)
        #expect(Self.text(refused).contains(#"<div class="condition-row invalid" id="field-row_3" data-condition-row>"#))
    }

    @Test func aSegmentIsCountedBeforeSavingAndItsRowErrorsStayBesideTheRow() throws {
        let browser = try PagesBrowser(role: .editor)
        _ = try browser.harness.herald.server.application.devices.register(token: "fa-1", document: ["platform": "android", "language": "fa-IR"])
        _ = try browser.harness.herald.server.application.devices.register(token: "fa-2", document: ["platform": "ios", "language": "fa"])
        _ = try browser.harness.herald.server.application.devices.register(token: "de-1", document: ["platform": "ios", "language": "de"])
        let rows: [(name: String, value: String)] = [("name", "Persian speakers"), ("combine", "all"),
                                                     ("field_0", "language"), ("op_0", "is"), ("value_0", "fa")]
        let counted = Self.text(browser.post("/segments", rows + [("action", "count")]))
        #expect(counted.contains("2 active devices match now."))
        #expect(try browser.harness.herald.server.application.segments.list().isEmpty)  // counting saves nothing

        let bad = browser.post("/segments", [("name", "Broken"), ("field_0", "language"), ("op_0", "is"), ("value_0", "fa"),
                                             ("field_1", "app_version"), ("op_1", "at_least"), ("value_1", "beta"), ("action", "save")])
        #expect(bad.status == 422)
        #expect(Self.text(bad).contains(#"<div class="condition-row invalid" id="field-row_1" data-condition-row>"#))
        #expect(Self.text(bad).contains(#"value="beta""#))  // the form comes back filled in

        let saved = browser.post("/segments", rows + [("action", "save")])
        #expect(saved.status == 200)
        #expect(Self.text(saved).contains("2 active devices match now."))
        let segment = try #require(try browser.harness.herald.server.application.segments.list().first)
        #expect(segment.rule == .all([.condition(.equals(.language, "fa"))]))

        // The composer's target step offers it with its reach.
        let composer = Self.text(browser.get("/campaigns/new"))
        #expect(composer.contains(#"<option value="\#(segment.id)" data-reach="2">Persian speakers — active devices: 2</option>"#))

        // A draft to it with an A/B test and a holdout comes back with each arm's reach.
        let draft = browser.post("/campaigns", CampaignFormTests.fields([
            ("target_kind", "segment"), ("segment", segment.id.description), ("schedule_kind", "none"), ("variant_weight_0", "1"), ("variant_weight_1", "1"),
        ]))
        let edited = Self.text(draft)  // the composer again, after the save's redirect
        #expect(edited.contains("This segment&#39;s devices by variant: A ≈ 1, B ≈ 1, holdout ≈ 0") || edited.contains("This segment's devices by variant: A ≈ 1, B ≈ 1, holdout ≈ 0"),
                "\(edited.components(separatedBy: "arm-reach").dropFirst().first?.prefix(300) ?? "no arm reach")")
    }

    /// The arms' reach splits a segment as the plan does: by the variants' weights, the holdout first.
    @Test func eachArmsReachIsItsShareOfTheSegment() throws {
        let form = CampaignForm(fields: CampaignFormTests.fields([("target_kind", "segment"), ("segment", "s"), ("variant_weight_0", "3"), ("variant_weight_1", "1")]))
        let (a, b, holdout) = (words.number(6750), words.number(2250), words.number(1000))
        #expect(ComposerView.armReach(of: form, devices: 10_000, words: words) == "This segment's devices by variant: A ≈ \(a), B ≈ \(b), holdout ≈ \(holdout)")
        var single = CampaignForm(fields: CampaignFormTests.fields([("holdout_percent", "0")]))
        single.variants = []
        #expect(ComposerView.armReach(of: single, devices: 10_000, words: words) == nil)  // nothing splits it
        // A row added but not filled in is no variant yet (it showed as "? ≈ 0").
        let blank = CampaignForm(fields: CampaignFormTests.fields([("target_kind", "segment"), ("segment", "s"), ("variant_weight_0", "3"),
                                                                  ("variant_weight_1", "1"), ("variant_key_2", ""), ("variant_weight_2", "")]))
        #expect(blank.variants.count == 3)
        #expect(ComposerView.armReach(of: blank, devices: 10_000, words: words) == "This segment's devices by variant: A ≈ \(a), B ≈ \(b), holdout ≈ \(holdout)")
    }
}

/// A campaign to devices survives the composer: its audience, variables and translations.
@Suite struct DeviceCampaignFormTests {
    @Test func aCampaignToDevicesWithTranslationsSurvivesTheComposer() throws {
        for audience in [("tokens", JSON.array(["tok-1", "tok-2"])), ("segment", JSON.string("0f9e8d7c-6b5a-4000-8000-000000000001"))] {
            let json: JSON = ["name": "Hello", audience.0: audience.1,
                              "notification": ["title": "Hello {{first_name | default: \"friend\"}}", "body": "News",
                                               "translations": ["fa": ["title": "سلام {{first_name | default: \"دوست\"}}"]]],
                              "variants": [["key": "A", "weight": 1], ["key": "B", "weight": 1, "notification": ["translations": ["he": ["body": "חדשות"]]]]]]
            guard case .success(let spec) = CampaignSpec.parse(json) else { Issue.record("refused"); continue }
            let form = CampaignForm(spec: spec, version: 1)
            guard case .success(let back) = form.parse(words: words) else { Issue.record("the composer refused its own form"); continue }
            #expect(back == spec)
        }
        var broken = CampaignForm(spec: try CampaignSpec.parse(["name": "n", "tokens": ["t"], "notification": ["title": "t"]]).get(), version: 1)
        broken.translations = "{\"fa\": "
        guard case .failure(let errors) = broken.parse(words: words) else { Issue.record("accepted"); return }
        #expect(errors["translations"].first?.hasPrefix("this is not JSON") == true)
    }
}
