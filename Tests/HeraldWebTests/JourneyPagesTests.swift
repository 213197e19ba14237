import Foundation
import HeraldHTTP
import HeraldJSON
import Testing
@testable import HeraldApp
@testable import HeraldCore
@testable import HeraldWeb

/// The journey pages as a marketer uses them, without JavaScript: the welcome journey built a
/// step at a time with the page's own buttons and saved; bad input back as posted with each
/// problem beside its field (in Persian too); a stale form kept whole beside the other editor's
/// version; publish (refused to the last editor with approvals on), pause, resume and stop; and
/// a journey written over the API saved through the page unchanged.
@Suite(.serialized) struct JourneyPagesTests {
    /// The journey form's fields as the page shows them, with `changes` typed over them.
    static func form(_ page: HTTPResponse, _ changes: [(String, String)] = []) -> [(name: String, value: String)] {
        var fields = FormScraper.fields(page.text, form: "journey-form").filter { $0.name != "action" && $0.name != "csrf_token" }
        for (name, value) in changes {
            if let index = fields.firstIndex(where: { $0.name == name }) { fields[index].value = value } else { fields.append((name, value)) }
        }
        return fields
    }

    /// Presses the button `action` of the journey form on `page`, after typing `changes`.
    static func press(_ browser: PagesBrowser, _ page: HTTPResponse, _ action: String, _ changes: [(String, String)] = [], at target: String) -> HTTPResponse {
        browser.postMultipart(target, form(page, changes) + [("action", action)], file: nil)
    }

    /// The step ids of the form on `page`, in order.
    static func steps(_ page: HTTPResponse) -> [String] {
        FormScraper.fields(page.text, form: "journey-form").filter { $0.name == "step" }.map(\.value)
    }

    static func definitionMembers(_ json: JSON?) -> String {
        JSON.object(JSONObject(["name", "entry", "goal", "holdout_percent", "steps"].compactMap { key in json?[key].map { (key, $0) } })).serializedString()
    }

    /// A journey document in the order the server writes it.
    static func canonical(_ json: JSON) -> String {
        guard case .success(let definition) = JourneyDefinition.parse(json) else { return "not a journey: \(json.serializedString())" }
        return definition.toJSON().serializedString()
    }

    @Test func theWelcomeJourneyIsBuiltStepByStepWithoutJavaScriptAndSaved() async throws {
        let browser = try PagesBrowser(role: .editor, environment: ["HERALD_SCHEDULER": "false"])
        let herald = browser.harness.herald
        #expect(browser.get("/campaigns").text.contains("<a href=\"/journeys\">Journeys</a>"))
        var page = browser.get("/journeys/new")
        #expect(page.status == 200 && page.text.contains("New journey"))
        // A new journey starts with one exit step; the welcome journey is built above it.
        let exit = try #require(Self.steps(page).first)
        page = Self.press(browser, page, "add:start:wait", [("name", "Welcome"), ("entry_event", "signed_up"), ("goal_event", "purchased"),
                                                            ("s\(exit)_name", "done")], at: "/journeys")
        #expect(page.status == 200 && Self.steps(page).count == 2)
        let settle = Self.steps(page)[0]
        page = Self.press(browser, page, "add:\(settle):send", [("s\(settle)_name", "settle"), ("s\(settle)_minutes", "60")], at: "/journeys")
        let welcome = Self.steps(page)[1]
        #expect(page.text.contains("name=\"s\(welcome)_title\""), "a send step shows the composer's message fields")
        page = Self.press(browser, page, "add_variant:\(welcome)", [("s\(welcome)_name", "welcome"), ("s\(welcome)_title", "Welcome!"),
                                                                    ("s\(welcome)_body", "Glad you are here")], at: "/journeys")
        page = Self.press(browser, page, "add_variant:\(welcome)", [], at: "/journeys")
        let variants = FormScraper.fields(page.text, form: "journey-form").filter { $0.name.hasPrefix("variant_key_\(welcome)v") }.map(\.name)
        #expect(variants.count == 2)
        page = Self.press(browser, page, "add:\(welcome):wait", [
            (variants[0], "A"), (variants[0].replacingOccurrences(of: "key", with: "weight"), "50"),
            (variants[0].replacingOccurrences(of: "key", with: "title"), "Welcome!"), (variants[0].replacingOccurrences(of: "key", with: "body"), "Glad you are here"),
            (variants[1], "B"), (variants[1].replacingOccurrences(of: "key", with: "weight"), "50"),
            (variants[1].replacingOccurrences(of: "key", with: "title"), "Hello there"), (variants[1].replacingOccurrences(of: "key", with: "body"), "Take a look around"),
        ], at: "/journeys")
        let read = Self.steps(page)[2]
        page = Self.press(browser, page, "add:\(read):branch", [("s\(read)_name", "read?"), ("s\(read)_wait_kind", "until"),
                                                              ("s\(read)_condition", "opened"), ("s\(read)_minutes", "1440")], at: "/journeys")
        let check = Self.steps(page)[3]
        page = Self.press(browser, page, "add:\(check):send", [("s\(check)_name", "check")], at: "/journeys")
        let nudge = Self.steps(page)[4]
        #expect(Self.steps(page) == [settle, welcome, read, check, nudge, exit])
        // The branch's targets are the later steps, by name.
        #expect(page.text.contains("<option value=\"done\">done</option>"))
        let saved = Self.press(browser, page, "save", [
            ("s\(check)_condition", "opened"), ("s\(check)_then", "done"), ("s\(check)_else", "nudge"),
            ("s\(nudge)_name", "nudge"), ("s\(nudge)_title", "Still there?"), ("s\(nudge)_body", "Your first week is free"),
        ], at: "/journeys")
        #expect(saved.status == 200 && saved.text.contains("Draft saved."), "\(saved.status) \(saved.text.components(separatedBy: "field-error").dropFirst().prefix(3))")
        #expect(saved.text.contains("<svg class=\"journey-diagram\"") && saved.text.contains(">then<") && saved.text.contains(">else<"))

        let list = try await herald.request("GET", "/api/v1/journeys")
        let stored = try #require(list.json?["items"]?.arrayValue?.first)
        #expect(Self.canonical(stored) == Self.canonical(JourneyPageFixtures.welcome))
        let listed = browser.get("/journeys").text
        #expect(listed.contains(">Welcome</a>") && listed.contains(">Draft</span>"))
    }

    @Test func badInputComesBackAsPostedWithEachProblemBesideItsFieldInThePagesLanguage() async throws {
        let browser = try PagesBrowser(role: .editor, environment: ["HERALD_SCHEDULER": "false"])
        let herald = browser.harness.herald
        let created = try await herald.request("POST", "/api/v1/journeys", json: JourneyPageFixtures.welcome)
        let id = try #require(created.json?["id"]?.stringValue)
        let page = browser.get("/journeys/\(id)")
        let ids = Self.steps(page)
        let refused = Self.press(browser, page, "save", [("entry_event", "signed up!"), ("s\(ids[0])_minutes", "0"), ("s\(ids[3])_then", ""),
                                                         ("holdout_percent", "ten")], at: "/journeys/\(id)")
        #expect(refused.status == 422)
        let html = refused.text
        #expect(html.contains("The journey was not saved: please fix these fields"))
        // Typed values stay; each problem stands in its field's block.
        #expect(html.contains("value=\"signed up!\"") && html.contains("value=\"ten\""))
        for field in ["entry_event", "holdout_percent", "s\(ids[0])_minutes", "s\(ids[3])_then"] {
            let block = html.components(separatedBy: "id=\"field-\(field)\"").dropFirst().first?.components(separatedBy: "</div>").first ?? ""
            #expect(block.contains("field-error"), "\(field) has no error beside it")
        }
        #expect(html.contains("a wait is 1 to 525600 minutes"))
        // Nothing was saved.
        #expect(try await herald.request("GET", "/api/v1/journeys/\(id)").json?["version"] == 1)

        _ = browser.post("/language", [("language", "fa"), ("next", "/journeys")])
        let persian = Self.press(browser, browser.get("/journeys/\(id)"), "save", [("s\(ids[0])_minutes", "0")], at: "/journeys/\(id)").text
        #expect(persian.contains("<html lang=\"fa\" dir=\"rtl\">") && persian.contains("سفر ذخیره نشد"))
        #expect(!persian.contains("a wait is 1 to 525600 minutes"))
    }

    /// An entry on a date coming due is set in the form's own fields; a wrong time is refused
    /// beside its field, and the saved entry reads back into the same fields.
    @Test func anEntryOnADateComingDueIsSetAndSavedThroughThePage() async throws {
        let browser = try PagesBrowser(role: .editor, environment: ["HERALD_SCHEDULER": "false"])
        let herald = browser.harness.herald
        let id = try #require(try await herald.request("POST", "/api/v1/journeys", json: JourneyPageFixtures.welcome).json?["id"]?.stringValue)
        let page = browser.get("/journeys/\(id)")
        #expect(page.text.contains("value=\"date\""))
        let refused = Self.press(browser, page, "save", [("entry_kind", "date"), ("entry_date_property", "renewal_date"), ("entry_date_offset", "-3"),
                                                         ("entry_date_at", "25:00")], at: "/journeys/\(id)")
        #expect(refused.status == 422 && refused.text.contains("value=\"25:00\"") && refused.text.contains("value=\"renewal_date\""))
        let block = refused.text.components(separatedBy: "id=\"field-entry_date_at\"").dropFirst().first?.components(separatedBy: "</div>").first ?? ""
        #expect(block.contains("field-error"), "the time has no error beside it")
        #expect(try await herald.request("GET", "/api/v1/journeys/\(id)").json?["version"] == 1)
        let saved = Self.press(browser, refused, "save", [("entry_date_at", "10:00")], at: "/journeys/\(id)")
        #expect(saved.text.contains("Draft saved."))
        #expect(try await herald.request("GET", "/api/v1/journeys/\(id)").json?["entry"]?["date"]
                == ["property": "renewal_date", "offset_days": -3, "at": "10:00"])
        let shown = browser.get("/journeys/\(id)").text
        #expect(shown.contains("value=\"date\" checked") && shown.contains("value=\"-3\"") && shown.contains("value=\"10:00\""))
    }

    @Test func theEntrysRuleIsCopiedFromASavedSegmentAndSaved() async throws {
        let browser = try PagesBrowser(role: .editor, environment: ["HERALD_SCHEDULER": "false"])
        let herald = browser.harness.herald
        let rule: JSON = ["all": [["field": "language", "equals": "fa"]]]
        let segment = try #require(try await herald.request("POST", "/api/v1/segments", json: ["name": "Persian speakers", "rule": rule]).json?["id"]?.stringValue)
        let id = try #require(try await herald.request("POST", "/api/v1/journeys", json: JourneyPageFixtures.welcome).json?["id"]?.stringValue)
        let page = browser.get("/journeys/\(id)")
        #expect(page.text.contains("<option value=\"\(segment)\">Persian speakers</option>"))
        let copied = Self.press(browser, page, "use_segment", [("copy_segment", segment)], at: "/journeys/\(id)")
        #expect(copied.status == 200 && !copied.text.contains("Draft saved."))
        let saved = Self.press(browser, copied, "save", at: "/journeys/\(id)")
        #expect(saved.text.contains("Draft saved."))
        #expect(try await herald.request("GET", "/api/v1/journeys/\(id)").json?["entry"]?["segment"] == rule)
        // A segment deleted meanwhile is said so beside the field.
        let gone = Self.press(browser, saved, "use_segment", [("copy_segment", "00000000-0000-4000-8000-000000000000")], at: "/journeys/\(id)")
        #expect(gone.text.contains("That segment no longer exists"))
    }

    @Test func aStaleFormGetsTheConflictWithEverythingTypedKept() async throws {
        let browser = try PagesBrowser(role: .editor, environment: ["HERALD_SCHEDULER": "false"])
        let herald = browser.harness.herald
        let id = try #require(try await herald.request("POST", "/api/v1/journeys", json: JourneyPageFixtures.welcome).json?["id"]?.stringValue)
        let page = browser.get("/journeys/\(id)")
        // Someone else saves first.
        var theirs = JourneyPageFixtures.welcome.objectValue ?? [:]
        theirs["name"] = "Welcome (theirs)"
        #expect(try await herald.request("PUT", "/api/v1/journeys/\(id)", json: .object(theirs), headers: ["If-Match": "\"1\""]).status == 200)
        let conflict = Self.press(browser, page, "save", [("name", "Welcome (mine)")], at: "/journeys/\(id)")
        #expect(conflict.status == 409)
        #expect(conflict.text.contains("saved version 2") && conflict.text.contains("value=\"Welcome (mine)\"") && conflict.text.contains("Welcome (theirs)"))
        #expect(try await herald.request("GET", "/api/v1/journeys/\(id)").json?["name"] == "Welcome (theirs)")
        // The form now stands on their version: saving again is a deliberate overwrite.
        let again = Self.press(browser, conflict, "save", at: "/journeys/\(id)")
        #expect(again.status == 200 && again.text.contains("Draft saved."))
        #expect(try await herald.request("GET", "/api/v1/journeys/\(id)").json?["name"] == "Welcome (mine)")
    }

    @Test func publishingFollowsTheApprovalRuleAndThenPausesResumesAndStops() async throws {
        let browser = try PagesBrowser(role: .publisher, environment: ["HERALD_SCHEDULER": "false", "HERALD_APPROVALS": "on"])
        let harness = browser.harness
        let other = try harness.session(try harness.user(.publisher))
        func asOther(_ target: String, _ fields: [(String, String)]) -> HTTPResponse {
            let cookie = ("Cookie", "\(Authentication.sessionCookie)=\(other.id)")
            let response = harness.send(.post, target, headers: [("Content-Type", "application/x-www-form-urlencoded"), cookie],
                                        body: Array(AccessHarness.encode([("csrf_token", other.csrf)] + fields).utf8))
            guard response.status == 303, let location = response.headers["Location"] else { return response }
            return harness.send(.get, location, headers: [cookie])
        }
        let id = try #require(try await harness.herald.request("POST", "/api/v1/journeys", json: JourneyPageFixtures.welcome).json?["id"]?.stringValue)
        // This publisher saves the draft through the page: the last editor, so another publishes.
        let saved = Self.press(browser, browser.get("/journeys/\(id)"), "save", [("name", "Welcome!")], at: "/journeys/\(id)")
        #expect(saved.text.contains("action=\"/journeys/\(id)/publish\"") && saved.text.contains("name=\"version\" value=\"2\""))
        let refused = browser.post("/journeys/\(id)/publish", [("version", "2")])
        #expect(refused.status == 409 && refused.text.contains("you made it, so someone else publishes it"))
        #expect(try await harness.herald.request("GET", "/api/v1/journeys/\(id)").json?["status"] == "draft")
        // A stale page cannot publish a draft it did not show.
        #expect(asOther("/journeys/\(id)/publish", [("version", "1")]).text.contains("The draft changed since this page was loaded"))
        let published = asOther("/journeys/\(id)/publish", [("version", "2")])
        #expect(published.status == 200 && published.text.contains("Published: new entrants take this version."))
        #expect(published.text.contains(">Live</span>") && published.text.contains("entered 0"))
        #expect(published.text.contains("Move devices waiting to the new version"))

        let paused = browser.post("/journeys/\(id)/pause", [])
        #expect(paused.text.contains(">Paused</span>") && paused.text.contains("action=\"/journeys/\(id)/resume\""))
        #expect(browser.post("/journeys/\(id)/resume", []).text.contains(">Live</span>"))
        // Stopping is asked first (the page of its own, without JavaScript), then done.
        let asked = browser.post("/journeys/\(id)/stop", [])
        #expect(asked.text.contains("Stop Welcome! for everyone?") && asked.text.contains("name=\"confirmed\" value=\"yes\""))
        #expect(try await harness.herald.request("GET", "/api/v1/journeys/\(id)").json?["status"] == "live")
        let stopped = browser.post("/journeys/\(id)/stop", [("confirmed", "yes")])
        #expect(stopped.text.contains(">Stopped</span>") && !stopped.text.contains("action=\"/journeys/\(id)/publish\""))
    }

    /// What the page offers follows the role, as the routes do: a viewer reads the journey and its
    /// diagram, an editor builds and saves it, only a publisher publishes it.
    @Test func eachRoleIsOfferedOnlyWhatItMayDo() async throws {
        let viewer = try PagesBrowser(role: .viewer, environment: ["HERALD_SCHEDULER": "false"])
        let harness = viewer.harness
        let id = try #require(try await harness.herald.request("POST", "/api/v1/journeys", json: JourneyPageFixtures.welcome).json?["id"]?.stringValue)
        let read = viewer.get("/journeys/\(id)").text
        #expect(read.contains("<svg class=\"journey-diagram\"") && read.contains("value=\"signed_up\""))
        #expect(!read.contains("value=\"save\"") && !read.contains("value=\"add:") && !read.contains("/publish\""))
        #expect(!viewer.get("/journeys").text.contains("href=\"/journeys/new\""))
        #expect(viewer.post("/journeys/\(id)", [("action", "save")]).status == 403)

        let editor = try harness.session(try harness.user(.editor))
        let page = harness.send(.get, "/journeys/\(id)", headers: [("Cookie", "\(Authentication.sessionCookie)=\(editor.id)")]).text
        #expect(page.contains("value=\"save\"") && page.contains("value=\"add:0:wait\"") && !page.contains("/publish\""))
        let publish = harness.send(.post, "/journeys/\(id)/publish", headers: [("Content-Type", "application/x-www-form-urlencoded"),
                                                                               ("Cookie", "\(Authentication.sessionCookie)=\(editor.id)")],
                                   body: Array(AccessHarness.encode([("csrf_token", editor.csrf), ("version", "1")]).utf8))
        #expect(publish.status == 403)
        #expect(try await harness.herald.request("GET", "/api/v1/journeys/\(id)").json?["status"] == "draft")
    }

    @Test func aJourneyWrittenOverTheAPISavesThroughThePageUnchanged() async throws {
        let browser = try PagesBrowser(role: .editor, environment: ["HERALD_SCHEDULER": "false"])
        let herald = browser.harness.herald
        // Everything the journey document says: a segment on the entry, days, a holdout, a time
        // of day, an event condition, a segment branch, a message's options and delivery.
        let rich: JSON = [
            "name": "Everything", "entry": ["event": "cart_abandoned", "segment": ["all": [["field": "platform", "equals": "android"]]],
                                            "frequency": "once_per_days", "days": 7],
            "goal": ["event": "purchased"], "holdout_percent": 5,
            "steps": [
                ["name": "morning", "type": "wait", "until_time": "10:00"],
                ["name": "nudge", "type": "send", "next": "last", "message": [
                    "notification": ["title": "Your cart", "body": "{{item | default: \"It\"}} is still there", "image": "https://example.com/a.png"],
                    "data": ["screen": "cart"], "options": ["android_channel_id": "offers", "priority": "high"], "delivery": ["category": "reminders"]]],
                ["name": "back?", "type": "wait", "until": ["event": "app_opened"], "minutes": 120, "next": "last"],
                ["name": "last", "type": "branch", "if": ["segment": ["all": [["field": "language", "equals": "fa"]]]], "then": "done", "else": "done"],
                ["name": "done", "type": "exit"],
            ],
        ]
        // An entry on a date, and a send step whose test calls its own winner.
        let dated: JSON = [
            "name": "Renewal", "entry": ["date": ["property": "renewal_date", "offset_days": -3, "at": "10:00"], "frequency": "every_time"],
            "steps": [["name": "remind", "type": "send", "message": [
                "notification": ["title": "Renewing soon"],
                "variants": [["key": "A", "weight": 1, "notification": ["body": "In 3 days"]], ["key": "B", "weight": 1, "notification": ["body": "Keep your plan"]]],
                "auto_winner": ["after_minutes": 1440, "metric": "opens", "confidence": 95, "fallback": "baseline"]]]],
        ]
        let created = try await herald.request("POST", "/api/v1/journeys", json: rich)
        let id = try #require(created.json?["id"]?.stringValue, "\(created.json ?? .null)")
        for journey in [rich, JourneyPageFixtures.welcome, dated] {
            let before = try await herald.request("PUT", "/api/v1/journeys/\(id)", json: journey,
                                                  headers: ["If-Match": "\"\(try await herald.request("GET", "/api/v1/journeys/\(id)").json?["version"]?.intValue ?? 0)\""])
            #expect(before.status == 200)
            let saved = Self.press(browser, browser.get("/journeys/\(id)"), "save", at: "/journeys/\(id)")
            #expect(saved.status == 200 && saved.text.contains("Draft saved."), "\(saved.text.components(separatedBy: "field-error").dropFirst().prefix(3))")
            let after = try await herald.request("GET", "/api/v1/journeys/\(id)")
            #expect(Self.definitionMembers(after.json) == Self.definitionMembers(before.json))
        }
    }
}
