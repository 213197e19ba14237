import FCMEmulator
import Foundation
import HeraldCore
import HeraldJSON
import HeraldTestSupport
import Testing
@testable import HeraldApp
@testable import HeraldWeb

/// No one gets too many: the frequency caps hold across campaigns (a capped device is reported,
/// never sent later), a device that switched a category off gets none of it, and the global
/// control group is the same devices in every marketing campaign, with a comparison that
/// matches a hand computation.
@Suite(.serialized) struct ContactPolicyTests {
    /// Registers `count` Android devices of `country` with tokens `<prefix>-<n>`.
    static func register(_ herald: TestHerald, prefix: String, count: Int, country: String, quiet: [String] = []) throws {
        _ = try herald.server.application.database.pool.withConnection { connection in
            try DeviceStore().upsert((0..<count).map {
                Device(token: "\(prefix)-\($0)", platform: .android, country: country, quietCategories: quiet)
            }, on: connection)
        }
    }

    static func segment(_ herald: TestHerald, countries: [String]) async throws -> String {
        try #require(try await herald.request("POST", "/api/v1/segments", json: [
            "name": .string(countries.joined(separator: "+")),
            "rule": ["all": [["field": "country", "in": .array(countries.map(JSON.string))]]]]).json?["id"]?.stringValue)
    }

    /// Creates and schedules a campaign; waits until it has sent. Returns its id.
    @discardableResult
    static func send(_ herald: TestHerald, _ campaign: JSON) async throws -> String {
        let created = try await herald.request("POST", "/api/v1/campaigns", json: campaign)
        let id = try #require(created.json?["id"]?.stringValue, "\(created.json as Any)")
        #expect(try await herald.request("POST", "/api/v1/campaigns/\(id)/schedule", headers: ["If-Match": "\"1\""]).status == 200)
        #expect(try await eventually(timeout: waitingLimit) {
            try await herald.request("GET", "/api/v1/campaigns/\(id)").json?["status"]?.stringValue == "sent"
        })
        return id
    }

    static func requests(_ report: JSON?) -> (sent: Int, capped: Int) {
        let variants = report?["variants"]?.arrayValue ?? []
        return (variants.reduce(0) { $0 + Int($1["requests"]?["sent"]?.doubleValue ?? 0) },
                variants.reduce(0) { $0 + Int($1["requests"]?["capped"]?.doubleValue ?? 0) })
    }

    /// Messages the emulator got, per device token.
    static func received(_ sink: EmulatorSink) -> [String: [String]] {
        sink.emulator.messages().reduce(into: [:]) { byToken, message in
            byToken[message.message["token"]?.stringValue ?? "", default: []].append(message.message["notification"]?["title"]?.stringValue ?? "")
        }
    }

    @Test(.timeLimit(.minutes(4)))
    func threeCampaignsToOverlappingSegmentsWithACapOfTwoADay() async throws {
        let sink = try EmulatorSink()
        let herald = try TestHerald(environment: sink.environment, log: Log(minimum: .warning))
        try Self.register(herald, prefix: "ir", count: 100, country: "IR")
        try Self.register(herald, prefix: "de", count: 100, country: "DE")
        try Self.register(herald, prefix: "fr", count: 100, country: "FR")
        let caps = try await herald.request("PUT", "/api/v1/frequency-caps", json: ["marketing": ["day": 2]])
        #expect(caps.status == 200 && caps.json?["marketing"]?["day"]?.doubleValue == 2, "\(caps.json as Any)")

        let irde = try await Self.segment(herald, countries: ["IR", "DE"]), defr = try await Self.segment(herald, countries: ["DE", "FR"])
        let everyone = try await Self.segment(herald, countries: ["IR", "DE", "FR"])
        let first = try await Self.send(herald, ["name": "First", "notification": ["title": "First"], "segment": .string(irde)])
        let second = try await Self.send(herald, ["name": "Second", "notification": ["title": "Second"], "segment": .string(defr)])
        // Before it goes, the review's forecast: of the 300, the 100 in Germany are at their cap.
        let thirdSpec = try CampaignSpec.parse(["name": "Third", "notification": ["title": "Third"], "segment": .string(everyone)]).get()
        let forecast = try #require(try herald.server.application.contactPolicy.reachForecast(thirdSpec, audience: 300))
        #expect(forecast.capped == 100 && forecast.controlGroup == 0 && forecast.expected == 200, "\(forecast)")
        // The forecast reads the campaign's own devices, not the registry's average: to Germany
        // alone, every device is at its cap; to France alone, none is. (A sample of the whole
        // registry, where a third are at their cap, said "about 67 of 100" to both.)
        let germany = try await Self.segment(herald, countries: ["DE"]), france = try await Self.segment(herald, countries: ["FR"])
        for (segment, capped) in [(germany, 100), (france, 0)] {
            let spec = try CampaignSpec.parse(["name": "One country", "notification": ["title": "Hi"], "segment": .string(segment)]).get()
            let alone = try #require(try herald.server.application.contactPolicy.reachForecast(spec, audience: 100))
            #expect(alone.capped == capped && alone.expected == 100 - capped, "\(alone)")
        }
        let third = try await Self.send(herald, ["name": "Third", "notification": ["title": "Third"], "segment": .string(everyone),
                                                 "variants": [["key": "A", "weight": 1], ["key": "B", "weight": 1]]])

        let received = Self.received(sink)
        #expect(received.count == 300)
        #expect(received.values.allSatisfy { $0.count <= 2 }, "\(received.filter { $0.value.count > 2 })")
        // Germany was in both earlier segments: the third campaign reaches Iran and France only.
        #expect((0..<100).allSatisfy { received["de-\($0)"] == ["First", "Second"] })
        #expect((0..<100).allSatisfy { received["ir-\($0)"] == ["First", "Third"] && received["fr-\($0)"] == ["Second", "Third"] })
        let reports = try await [first, second, third].asyncMap { try await herald.request("GET", "/api/v1/campaigns/\($0)/report").json }
        #expect(Self.requests(reports[0]) == (200, 0) && Self.requests(reports[1]) == (200, 0))
        #expect(Self.requests(reports[2]) == (200, 100), "\(reports[2] as Any)")
        // Per variant, the capped devices are those of its buckets.
        let variants = reports[2]?["variants"]?.arrayValue ?? []
        #expect(variants.count == 2 && variants.allSatisfy { ($0["requests"]?["capped"]?.doubleValue ?? 0) > 20 })
        // A one-call send (its requests planned as rows, claimed as they fall due) is capped as
        // marketing too: a device at its cap is reported capped, a new one is sent.
        let key = try herald.server.application.database.pool.withConnection { connection in
            try APIKeyStore().create(name: "orders", role: .publisher, scope: .sends, createdBy: "test", on: connection).key
        }
        let auth = ["Authorization": "Bearer \(key)", "Idempotency-Key": "weekly-digest-1"]
        let send = try await herald.request("POST", "/api/v1/sends", json: ["message": ["notification": ["title": "Digest"]],
                                                                            "to": [["token": "ir-0"], ["token": "newcomer-1"]]], headers: auth)
        let sendID = try #require(send.json?["id"]?.stringValue, "\(send.json as Any)")
        #expect(try await eventually(timeout: waitingLimit) {
            try await herald.request("GET", "/api/v1/sends/\(sendID)", headers: auth).json?["status"]?.stringValue == "sent"
        })
        let outcome = try await herald.request("GET", "/api/v1/sends/\(sendID)", headers: auth).json
        #expect(outcome?["recipients"]?.arrayValue?.map { $0["status"]?.stringValue ?? "" } == ["capped", "sent"], "\(outcome as Any)")
        #expect(Self.received(sink)["ir-0"]?.count == 2 && Self.received(sink)["newcomer-1"] == ["Digest"])

        // A transactional campaign is never capped (only a publisher or an admin may mark one so).
        let receipt = try await Self.send(herald, ["name": "Receipt", "notification": ["title": "Receipt"], "segment": .string(everyone),
                                                   "delivery": ["transactional": true]])
        let after = Self.received(sink)
        #expect(["ir", "de", "fr"].allSatisfy { country in (0..<100).allSatisfy { after["\(country)-\($0)"]?.last == "Receipt" } })
        #expect(Self.requests(try await herald.request("GET", "/api/v1/campaigns/\(receipt)/report").json) == (300, 0))

        // The caps' change is in the audit log, with what they were.
        let audit = try herald.server.application.database.pool.withConnection { connection in
            try connection.query("SELECT details::text FROM audit_log WHERE action = 'frequency_caps.changed'").map { try $0.decode(String.self, at: 0) }
        }
        #expect(audit.count == 1 && audit[0].contains("\"after\""))
    }

    @Test(.timeLimit(.minutes(3)))
    func anEditorMayNotMarkACampaignTransactional() async throws {
        let herald = try TestHerald()
        let editor = try herald.server.application.database.pool.withConnection { connection in
            try APIKeyStore().create(name: "editor", role: .editor, scope: .full, createdBy: "test", on: connection).key
        }
        let auth = ["Authorization": "Bearer \(editor)"]
        let refused = try await herald.request("POST", "/api/v1/campaigns", json: [
            "name": "Urgent", "notification": ["title": "Hi"], "topics": ["news"], "delivery": ["transactional": true]], headers: auth)
        #expect(refused.status == 422)
        #expect(refused.json?["errors"]?.arrayValue?.first?["path"]?.stringValue == "delivery.transactional")
        #expect(refused.json?["errors"]?.arrayValue?.first?["code"]?.stringValue == "not_permitted")
        // An editor may not change the caps either.
        #expect(try await herald.request("PUT", "/api/v1/frequency-caps", json: ["marketing": ["day": 1]], headers: auth).status == 403)
        // Bad caps name the field.
        let bad = try await herald.request("PUT", "/api/v1/frequency-caps", json: ["marketing": ["day": 0], "categories": ["Promo Ads": ["hour": 1]]])
        #expect(bad.status == 422)
        #expect(Set(bad.json?["errors"]?.arrayValue?.compactMap { $0["path"]?.stringValue } ?? []) == ["marketing.day", "categories.Promo Ads"],
                "\(bad.json as Any)")
    }

    @Test(.timeLimit(.minutes(3)))
    func aDeviceWithPromotionsOffGetsNewsAndNoPromotions() async throws {
        let sink = try EmulatorSink()
        let herald = try TestHerald(environment: sink.environment)
        // The app's backend switches the category off through the devices API.
        let quiet = try await herald.request("PUT", "/api/v1/devices/quiet-1", json: ["platform": "android", "quiet_categories": ["promotions"]])
        #expect(quiet.status == 200 || quiet.status == 201, "\(quiet.json as Any)")
        #expect(quiet.json?["quiet_categories"]?.arrayValue == ["promotions"])
        #expect(try await herald.request("PUT", "/api/v1/devices/loud-1", json: ["platform": "android"]).status == 201)
        let bad = try await herald.request("PUT", "/api/v1/devices/quiet-2", json: ["platform": "android", "quiet_categories": ["Promotions!"]])
        #expect(bad.status == 422 && bad.json?["errors"]?.arrayValue?.first?["path"]?.stringValue == "quiet_categories[0]")

        for (title, category) in [("Sale", "promotions"), ("Headlines", "news")] {
            try await Self.send(herald, ["name": .string(title), "notification": ["title": .string(title)], "tokens": ["quiet-1", "loud-1"],
                                         "delivery": ["category": .string(category)]])
        }
        let received = Self.received(sink)
        #expect(received["quiet-1"] == ["Headlines"])
        #expect(received["loud-1"] == ["Sale", "Headlines"])
    }

    @Test(.timeLimit(.minutes(4)))
    func theControlGroupIsTheSameDevicesInEveryMarketingCampaignAndItsLiftMatchesAHandComputation() async throws {
        let sink = try EmulatorSink()
        let herald = try TestHerald(environment: sink.environment)
        try Self.register(herald, prefix: "cg", count: 500, country: "IR")
        let set = try await herald.request("PUT", "/api/v1/control-group", json: ["percent": 20])
        #expect(set.status == 200 && set.json?["percent"]?.doubleValue == 20, "\(set.json as Any)")
        let policy = try herald.server.application.database.pool.withConnection { try ContactPolicyStore().read(on: $0) }
        let tokens = (0..<500).map { "cg-\($0)" }
        let control = Set(tokens.filter { policy.controlGroup.contains($0) })
        #expect((60...140).contains(control.count), "\(control.count) of 500 in a 20 % group")

        let everyone = try await Self.segment(herald, countries: ["IR"])
        try await Self.send(herald, ["name": "Monday", "notification": ["title": "Monday"], "segment": .string(everyone)])
        try await Self.send(herald, ["name": "Tuesday", "notification": ["title": "Tuesday"], "segment": .string(everyone),
                                     "variants": [["key": "A", "weight": 1], ["key": "B", "weight": 1]]])
        try await Self.send(herald, ["name": "Password", "notification": ["title": "Password"], "segment": .string(everyone),
                                     "delivery": ["transactional": true]])
        let received = Self.received(sink)
        // The same devices left out of both marketing campaigns, exactly the group; the transactional one reaches them.
        #expect(Set(tokens.filter { !(received[$0] ?? []).contains("Monday") }) == control)
        #expect(Set(tokens.filter { !(received[$0] ?? []).contains("Tuesday") }) == control)
        #expect(tokens.allSatisfy { (received[$0] ?? []).contains("Password") })

        // Fixture events, the app's own (no campaign): in the group 10 devices opened and 3
        // converted; outside it 150 opened (one twice) and 60 converted; one event before the period.
        let inGroup = control.sorted(), others = Set(tokens).subtracting(control).sorted()
        var events: [JSON] = []
        func event(_ id: String, _ token: String, _ type: String, at time: String = "2026-11-20T10:00:00Z") {
            events.append(["id": .string(id), "type": .string(type), "device_token": .string(token), "occurred_at": .string(time)])
        }
        for (index, token) in inGroup.prefix(10).enumerated() { event("c-open-\(index)", token, "open") }
        for (index, token) in inGroup.prefix(3).enumerated() { event("c-conv-\(index)", token, "conversion") }
        for (index, token) in others.prefix(150).enumerated() { event("r-open-\(index)", token, "open") }
        event("r-open-again", others[0], "open")
        for (index, token) in others.prefix(60).enumerated() { event("r-conv-\(index)", token, "conversion") }
        event("early", inGroup[20], "open", at: "2026-10-01T10:00:00Z")
        let posted = try await herald.request("POST", "/api/v1/events", json: ["events": .array(events)])
        #expect(posted.status == 200 || posted.status == 202, "\(posted.json as Any)")

        // The app's own event names its device; a variant without its campaign is no such event.
        let anonymous = try await herald.request("POST", "/api/v1/events", json: ["id": "nobody", "type": "open"])
        #expect(anonymous.status == 422 && anonymous.json?["errors"]?.arrayValue?.map { $0["path"]?.stringValue ?? "" } == ["device_token"])
        let halfCampaign = try await herald.request("POST", "/api/v1/events", json: ["id": "half", "type": "open", "variant": "A", "device_token": "cg-1"])
        #expect(halfCampaign.status == 422 && halfCampaign.json?["errors"]?.arrayValue?.first?["path"]?.stringValue == "campaign_id")
        let report = try #require(try await herald.request("GET", "/api/v1/control-group/report?from=2026-11-01T00:00:00Z&to=2026-12-01T00:00:00Z").json)
        let nc = Double(control.count), nr = Double(500 - control.count)
        #expect(report["control"]?["devices"]?.doubleValue == nc && report["everyone_else"]?["devices"]?.doubleValue == nr)
        #expect(report["control"]?["opened"]?.doubleValue == 10 && report["everyone_else"]?["opened"]?.doubleValue == 150)
        // By hand: the rates, their difference, the lift, the unpooled 95 % interval and the pooled one-tailed z-test.
        for (metric, c, r) in [("opens", 10.0, 150.0), ("conversions", 3.0, 60.0)] {
            let p0 = c / nc, p1 = r / nr, pooled = (c + r) / (nc + nr)
            let z = (p1 - p0) / (pooled * (1 - pooled) * (1 / nc + 1 / nr)).squareRoot()
            let half = 1.959963984540054 * (p1 * (1 - p1) / nr + p0 * (1 - p0) / nc).squareRoot()
            let compared = try #require(report[metric])
            #expect(abs((compared["control_rate"]?.doubleValue ?? -1) - p0) < 1e-12)
            #expect(abs((compared["everyone_else_rate"]?.doubleValue ?? -1) - p1) < 1e-12)
            #expect(abs((compared["lift"]?.doubleValue ?? -1) - (p1 - p0) / p0) < 1e-9)
            #expect(abs((compared["interval"]?.arrayValue?.first?.doubleValue ?? -1) - (p1 - p0 - half)) < 1e-9)
            #expect(abs((compared["p_value"]?.doubleValue ?? -1) - 0.5 * erfc(z / 2.0.squareRoot())) < 1e-9)
        }
        // The group's change is audited.
        let audit = try herald.server.application.database.pool.withConnection { connection in
            try connection.query("SELECT details::text FROM audit_log WHERE action = 'control_group.changed'").map { try $0.decode(String.self, at: 0) }
        }
        #expect(audit.count == 1 && audit[0].contains("\"percent\": 20"))
    }
}

/// The contact policy page: an admin sets the caps and the control group with forms (a bad cap
/// comes back as typed, nothing saved), a viewer reads them, and the comparison is shown.
@Suite(.serialized) struct ContactPolicyPagesTests {
    @Test(.timeLimit(.minutes(3)))
    func anAdminSetsTheCapsAndTheGroupAndAViewerReadsThem() async throws {
        let browser = try PagesBrowser(role: .admin)
        let page = browser.get("/contact-policy")
        #expect(page.status == 200 && page.text.contains("Frequency caps") && page.text.contains("Global control group"))
        let fields = FormScraper.fields(page.text, form: "/contact-policy/caps")
        let version = fields.first { $0.name == "version" }?.value ?? ""
        // A cap that is not a number: the form comes back as typed, and nothing is saved.
        let bad = browser.post("/contact-policy/caps", [("version", version), ("marketing_day", "two"), ("category", "promotions"), ("category_day", "1")])
        #expect(bad.status == 422 && bad.text.contains("Each cap is a whole number of messages, such as 2, found two."))
        #expect(bad.text.contains("value=\"two\"") && bad.text.contains("value=\"promotions\""))
        let herald = browser.harness.herald
        #expect(try await herald.request("GET", "/api/v1/frequency-caps").json?["marketing"] == [:])
        // A category name the rules refuse is named by the caps' own message.
        let refused = browser.post("/contact-policy/caps", [("version", version), ("category", "Promo Ads"), ("category_day", "1")])
        #expect(refused.status == 422 && refused.text.contains("Promo Ads"))

        let saved = browser.post("/contact-policy/caps", [("version", version), ("marketing_day", "2"), ("marketing_week", "5"),
                                                          ("category", "promotions"), ("category_day", "1"), ("category", ""), ("category_day", "")])
        #expect(saved.status == 200 && saved.text.contains("The frequency caps are saved."))
        let caps = try await herald.request("GET", "/api/v1/frequency-caps").json
        #expect(caps?["marketing"] == ["day": 2, "week": 5] && caps?["categories"] == ["promotions": ["day": 1]], "\(caps as Any)")
        let group = browser.post("/contact-policy/control-group", [("percent", "7.5")])
        #expect(group.status == 200 && group.text.contains("The control group is saved."))
        #expect(try await herald.request("GET", "/api/v1/control-group").json?["percent"]?.doubleValue == 7.5)
        #expect(group.text.contains("Control group") && group.text.contains("Everyone else"))

        // A viewer reads the same page without a way to change it.
        let viewer = try browser.harness.session(try browser.harness.user(.viewer))
        let read = browser.harness.send(.get, "/contact-policy", headers: [("Cookie", "\(Authentication.sessionCookie)=\(viewer.id)")])
        #expect(read.status == 200 && read.text.contains("value=\"promotions\"") && !read.text.contains("Save the caps"))
        #expect(read.text.contains("<fieldset disabled>"))
    }
}

extension ContactPolicyPagesTests {
    @Test(.timeLimit(.minutes(3)))
    func theReviewForecastsTheReachAndTheReportCountsTheCappedDevices() async throws {
        let sink = try EmulatorSink()
        let browser = try PagesBrowser(role: .admin, environment: sink.environment)
        let herald = browser.harness.herald
        #expect(try await herald.request("PUT", "/api/v1/frequency-caps", json: ["marketing": ["day": 1]]).status == 200)
        let tokens: JSON = ["page-1", "page-2", "page-3"]
        for token in tokens.arrayValue ?? [] { _ = try await herald.request("PUT", "/api/v1/devices/\(token.stringValue ?? "")", json: ["platform": "android"]) }
        _ = try await ContactPolicyTests.send(herald, ["name": "First", "notification": ["title": "First"], "tokens": tokens])
        // A company's endpoint listening for campaigns and runs (its posts are not the point here: what is told is).
        try herald.server.application.database.pool.withConnection { connection in
            _ = try connection.execute("""
                INSERT INTO webhooks (url, events, secret, created_by)
                VALUES ('http://127.0.0.1:9/hooks', '{campaign.finished,campaign.failed,campaign.nothing_sent,run.finished}', 'secret', 'test')
                """)
        }
        let created = try await herald.request("POST", "/api/v1/campaigns", json: ["name": "Second", "notification": ["title": "Second"], "tokens": tokens])
        let second = try #require(created.json?["id"]?.stringValue)
        let review = browser.get("/campaigns/\(second)/review").text
        #expect(review.contains("Under the contact policy: about 0 of its 3 devices get it (0 in the control group, about 3 at a frequency cap now)."),
                "\(review.split(separator: "\n").filter { $0.contains("contact") })")
        #expect(try await herald.request("POST", "/api/v1/campaigns/\(second)/schedule", headers: ["If-Match": "\"1\""]).status == 200)
        // Every device was capped: the campaign reached nobody, and no face says it was sent.
        #expect(try await eventually(timeout: waitingLimit) {
            try await herald.request("GET", "/api/v1/campaigns/\(second)").json?["status"]?.stringValue == "nothing_sent"
        })
        #expect(try await herald.request("GET", "/api/v1/campaigns/\(second)/runs").json?["items"]?.arrayValue?.map { $0["status"] } == ["nothing_sent"])
        #expect(sink.emulator.messages().count == 3)  // the first campaign's only
        for page in ["/campaigns", "/campaigns/\(second)/review", "/campaigns/\(second)/report"] {
            let text = browser.get(page).text
            #expect(text.contains(#"<span class="status status-nothing_sent">Nothing sent</span>"#), "\(page)")
            // The list also shows the first campaign, which was sent; the second's own pages never say so.
            #expect(page == "/campaigns" || !text.contains(#"status-sent""#), "\(page)")
        }
        let told = try herald.server.application.database.pool.withConnection { connection in
            try connection.query("SELECT event_type, body::text AS body FROM webhook_deliveries WHERE body::text LIKE \("%\(second)%") ORDER BY id")
                .map { try $0.decode((String, String).self, columns: "event_type", "body") }
        }
        #expect(told.map(\.0) == ["run.finished", "campaign.nothing_sent"], "\(told)")
        #expect(told.allSatisfy { $0.1.contains(#""status":"nothing_sent""#) })
        // The composer says it too, for a campaign to a segment (as typed: the category counts).
        let segment = try #require(try await herald.request("POST", "/api/v1/segments", json: [
            "name": "Android", "rule": ["all": [["field": "platform", "in": ["android"]]]]]).json?["id"]?.stringValue)
        let draft = try #require(try await herald.request("POST", "/api/v1/campaigns", json: [
            "name": "Third", "notification": ["title": "Third"], "segment": .string(segment)]).json?["id"]?.stringValue)
        let composer = browser.get("/campaigns/\(draft)/edit").text
        #expect(composer.contains("Under the contact policy: about 0 of its 3 devices get it"), "\(composer.split(separator: "\n").filter { $0.contains("contact") })")
        // To topics the caps cannot apply (FCM does not say who a topic reaches): the review and the composer say so.
        let topic = try #require(try await herald.request("POST", "/api/v1/campaigns", json: [
            "name": "News", "notification": ["title": "News"], "topics": ["news"]]).json?["id"]?.stringValue)
        for page in ["/campaigns/\(topic)/review", "/campaigns/\(topic)/edit"] {
            #expect(browser.get(page).text.contains("The frequency caps and the control group do not apply to topics"), "\(page)")
        }
        let report = browser.get("/campaigns/\(second)/report").text
        #expect(report.contains("The frequency caps kept 3 devices from this campaign (A 3)"), "\(report.split(separator: "\n").filter { $0.contains("capped") })")
    }
}

extension Sequence {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
