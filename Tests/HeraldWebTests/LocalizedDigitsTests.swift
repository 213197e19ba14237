import Foundation
import HeraldHTTP
import HeraldJSON
import HeraldTestSupport
import Testing
@testable import HeraldApp
@testable import HeraldWeb

/// Issue 43, finding 4: a number a person reads is in the reader's digits (Persian ۰–۹, Hindi
/// Devanagari ०–९, Latin for English) in the report's tables and charts, the device counts and a
/// segment's reach, while what machines read (attributes, coordinates) stays ASCII; chart legends
/// laid out right to left; the access-denied page in the viewer's language; audit actions in words.
@Suite(.serialized) struct LocalizedDigitsTests {
    static let persianDigits = Set("۰۱۲۳۴۵۶۷۸۹")
    static let hindiDigits = Set("०१२३४५६७८९")
    static let latinDigits = Set("0123456789")

    static func words(_ language: Language) -> Localized { Localized(language: language) }
    static func label(_ key: String, _ language: Language) -> String { LocalizationTests.tables[language]?[key] ?? key }

    /// Every piece of `html` from each `start` to the next `end` after it.
    static func pieces(of html: String, from start: String, to end: String) -> [String] {
        var found: [String] = []
        var rest = html[...]
        while let open = rest.range(of: start), let close = rest[open.upperBound...].range(of: end) {
            found.append(String(rest[open.lowerBound..<close.upperBound]))
            rest = rest[close.upperBound...]
        }
        return found
    }

    /// The text nodes of `pieces` that hold a digit of `digits`.
    static func texts(_ pieces: [String], holding digits: Set<Character>) -> [String] {
        pieces.flatMap { LocalizationTests.textNodes($0) }.filter { $0.contains(where: digits.contains) }
    }

    /// A two-variant campaign with 120 opens and 60 conversions on B (as `EventsTests` makes it).
    static func campaignWithEvents(_ herald: TestHerald) async throws -> String {
        let created = try await herald.request("POST", "/api/v1/campaigns", json: [
            "name": "Sale", "notification": ["title": "Hi"], "topics": ["news"],
            "variants": [["key": "A", "weight": 50], ["key": "B", "weight": 50, "notification": ["title": "Hello"]]],
        ])
        let id = try #require(created.json?["id"]?.stringValue)
        var batch: [JSON] = (0..<120).map { ["id": .string("o-\($0)"), "campaign_id": .string(id), "variant": "B", "type": "open"] }
        batch += (0..<60).map { ["id": .string("c-\($0)"), "campaign_id": .string(id), "variant": "B", "type": "conversion",
                                 "occurred_at": "2026-11-22T09:30:00Z"] }
        #expect(try await herald.request("POST", "/api/v1/events", json: ["events": .array(batch)]).json?["recorded"] == 180)
        return id
    }

    @Test(.timeLimit(.minutes(3)))
    func theReportsTablesAndChartsAreInTheReadersDigits() async throws {
        let browser = try PagesBrowser(role: .viewer)
        let id = try await Self.campaignWithEvents(browser.harness.herald)
        for (language, own, other) in [(Language.fa, Self.persianDigits, Self.latinDigits), (.hi, Self.hindiDigits, Self.latinDigits),
                                       (.en, Self.latinDigits, Self.persianDigits.union(Self.hindiDigits))] {
            _ = browser.post("/language", [("language", language.rawValue), ("next", "/campaigns")])
            let page = browser.get("/campaigns/\(id)/report")
            #expect(page.status == 200)
            let html = page.text
            let opened = Self.label("report.opened", language), converted = Self.label("report.converted", language)
            let words = Self.words(language)
            #expect(html.contains(#"<td data-label="\#(opened)">\#(words.number(120))</td><td data-label="\#(converted)">\#(words.number(60))</td>"#),
                    "\(language.rawValue): the variants table's figures")
            let tables = Self.pieces(of: html, from: "<tbody>", to: "</tbody>")
            #expect(!tables.isEmpty)
            #expect(Self.texts(tables, holding: other).isEmpty, "\(language.rawValue) tables: \(Self.texts(tables, holding: other))")
            let charts = Self.pieces(of: html, from: "<svg class=\"chart\"", to: "</svg>")
            #expect(!charts.isEmpty, "\(language.rawValue): the events chart")
            let chartTexts = charts.flatMap { LocalizationTests.textNodes($0) }
            // The axis reaches 120 (the most opens), a bar says its figure, the hour its day and time.
            #expect(chartTexts.contains(words.number(120)), "\(language.rawValue) axis: \(chartTexts)")
            #expect(chartTexts.contains { $0.hasSuffix(": " + words.number(60)) }, "\(language.rawValue) a bar's title: \(chartTexts)")
            #expect(chartTexts.contains(where: { $0.contains(where: own.contains) }))
            #expect(Self.texts(charts, holding: other).isEmpty, "\(language.rawValue) charts: \(Self.texts(charts, holding: other))")
            // What machines read stays ASCII: coordinates and sizes in every attribute.
            let attributes = charts.flatMap { $0.matches(of: /[a-z-]+="[^"]*"/).map { String($0.output) } }
            #expect(attributes.count > 20 && attributes.allSatisfy { !$0.contains(where: Self.persianDigits.union(Self.hindiDigits).contains) },
                    "\(language.rawValue): \(attributes.filter { $0.contains(where: Self.persianDigits.union(Self.hindiDigits).contains) })")
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func deviceCountsAndSegmentReachAreInTheReadersDigits() async throws {
        let browser = try PagesBrowser(role: .viewer)
        let herald = browser.harness.herald
        for (token, language) in [("d-1", "fa"), ("d-2", "fa"), ("d-3", "he")] {
            #expect(try await herald.request("PUT", "/api/v1/devices/\(token)", json: ["platform": "android", "language": .string(language)]).status == 201)
        }
        _ = try #require(try await herald.request("POST", "/api/v1/segments", json: [
            "name": "Persian", "rule": ["all": [["field": "language", "in": ["fa"]]]]]).json?["id"]?.stringValue)
        for (language, other) in [(Language.fa, Self.latinDigits), (.hi, Self.latinDigits), (.en, Self.persianDigits.union(Self.hindiDigits))] {
            _ = browser.post("/language", [("language", language.rawValue), ("next", "/devices")])
            let words = Self.words(language)
            let devices = browser.get("/devices").text
            let counts = Self.pieces(of: devices, from: "<dl class=\"counts\">", to: "</dl>") + Self.pieces(of: devices, from: "<div class=\"count-tables\">", to: "</div>\n")
            #expect(counts.count == 2)
            #expect(counts[0].contains("<dd>\(words.number(3))</dd>"), "\(language.rawValue): three active devices")
            #expect(counts.count > 1 && counts[1].contains("<td>\(words.number(2))</td>"), "\(language.rawValue): two in Persian")
            #expect(Self.texts(counts, holding: other).isEmpty, "\(language.rawValue) counts: \(Self.texts(counts, holding: other))")
            let segments = browser.get("/segments").text
            #expect(segments.contains(#"<td data-label="\#(Self.label("segments.active_now", language))">\#(words.number(2))</td>"#),
                    "\(language.rawValue): the segment's reach")
        }
    }

    /// The composer numbers its custom data rows' labels (and an unnamed variant) in the reader's digits.
    @Test func theComposersRowNumbersAreInTheReadersDigits() throws {
        let browser = try PagesBrowser(role: .editor)
        for (language, other) in [(Language.fa, Self.latinDigits), (.hi, Self.latinDigits), (.en, Self.persianDigits.union(Self.hindiDigits))] {
            _ = browser.post("/language", [("language", language.rawValue), ("next", "/campaigns/new")])
            let html = browser.get("/campaigns/new").text
            let key = Self.label("composer.data.key_n", language), words = Self.words(language)
            #expect(html.contains(#"for="data_key_0">\#(key) \#(words.number(1))</label>"#), "\(language.rawValue): the first data row's label")
            let labels = Self.pieces(of: html, from: "<label", to: "</label>") + Self.pieces(of: html, from: "<span data-variant-label>", to: "</span>")
            #expect(Self.texts(labels, holding: other).isEmpty, "\(language.rawValue): \(Self.texts(labels, holding: other))")
        }
    }

    @Test func numbersAndDatesAreWrittenInHindiDigits() {
        #expect(Localized(language: .hi).number(1234) == "१,२३४")
        #expect(Localized(language: .hi).percent(whole: 10).contains("१०"))
        let date = Localized(language: .hi).localTime("2027-03-21T09:30", zone: "Asia/Kolkata")
        #expect(date.contains("२१") && date.contains("२०२७") && date.contains("०९:३०") && date.contains("मार्च"), "\(date)")
        #expect(Localized(language: .en).number(1234) == "1234")
        // The table's own prose figures too ("(95% CI)", "every 5 seconds"), as the Persian table writes them.
        #expect(Localized(language: .hi).text("report.versus").contains("(९५% CI)"))
        #expect(Localized(language: .hi).text("report.refreshes").contains("५"))
        #expect(Localized(language: .fa).text("report.refreshes").contains("۵"))
    }

    /// In Persian and Hebrew a legend entry runs from the right: its swatch at the label's right,
    /// the label anchored at its own start there, so a swatch never sits on its label.
    @Test func chartLegendsRunFromTheStartSideOfTheLanguage() throws {
        func legend(_ language: Language) throws -> [(swatch: Int, text: Int, anchor: String)] {
            let svg = SVGChart.groupedBars(title: "Events", categories: ["A", "B"],
                                           series: [.init(label: "بازشده", cssClass: "bar-opens"), .init(label: "تبدیل", cssClass: "bar-conversions")],
                                           values: [[3, 1], [5, 2]], words: Localized(language: language))
            return svg.matches(of: /<rect class="[a-z-]+" x="(\d+)" y="6" width="12" height="12"\/><text class="legend" x="(\d+)" y="16" text-anchor="([a-z]+)" direction="([a-z]+)">/)
                .map { (Int($0.output.1)!, Int($0.output.2)!, "\($0.output.3) \($0.output.4)") }
        }
        for language in [Language.fa, .he] {
            let entries = try legend(language)
            #expect(entries.count == 2)
            for entry in entries {
                #expect(entry.text < entry.swatch && entry.anchor == "start rtl", "\(language.rawValue): the label ends left of its swatch: \(entry)")
            }
            #expect(entries.count == 2 && entries[1].swatch < entries[0].text, "the second entry is left of the first")
            #expect(entries.allSatisfy { $0.swatch + 12 <= SVGChart.width }, "inside the chart")
        }
        for entry in try legend(.en) {
            #expect(entry.swatch + 12 < entry.text && entry.anchor == "start ltr")
        }
    }

    /// A viewer who chose Persian and opens an admin's page is refused in Persian, right to left,
    /// with the language menu on Persian (so "Change" there keeps her language).
    @Test func theAccessDeniedPageIsInTheViewersLanguage() throws {
        let browser = try PagesBrowser(role: .viewer)
        _ = browser.post("/language", [("language", "fa"), ("next", "/campaigns")])
        for page in ["/users", "/audit", "/campaigns/new"] {
            let denied = browser.harness.send(.get, page, headers: [browser.cookie, ("Accept-Language", "en-GB,en;q=0.9")])
            #expect(denied.status == 403, "\(page)")
            let html = denied.text
            #expect(html.contains(#"<html lang="fa" dir="rtl">"#), "\(page)")
            #expect(html.contains("<h1>\(Self.label("access.denied", .fa))</h1>"), "\(page)")
            #expect(html.contains(#"<option value="fa" lang="fa" selected>"#) && !html.contains(#"<option value="en" lang="en" selected>"#), "\(page): the menu is on Persian")
            let roles = Self.words(.fa).text("access.needs_role", Self.words(.fa).text("role.\(page == "/campaigns/new" ? "editor" : "admin")"), Self.words(.fa).text("role.viewer"))
            #expect(html.contains(roles), "\(page): why, in Persian")
            #expect(LocalizationTests.englishLeft(in: html, language: .fa).isEmpty)
        }
        // A form posted without its token is refused in her language too.
        let forged = browser.harness.send(.post, "/language", headers: [browser.cookie, ("Content-Type", "application/x-www-form-urlencoded")],
                                          body: Array("language=en&next=%2Fcampaigns".utf8))
        #expect(forged.status == 403 && forged.text.contains(#"<html lang="fa" dir="rtl">"#) && forged.text.contains(Self.words(.fa).text("access.csrf")))
    }

    @Test func everyAuditActionHasWordsInEveryLanguage() {
        for language in Language.allCases {
            for action in AuditAction.allCases {
                let text = Localized(language: language).auditActionText(action.rawValue)
                #expect(text != action.rawValue && !text.isEmpty, "\(language.rawValue) \(action.rawValue)")
            }
        }
        #expect(Localized(language: .fa).auditActionText("campaign.approved") == "کمپین تأیید شد")
        #expect(Localized(language: .en).auditActionText("campaign.approved") == "Campaign approved")
        #expect(Localized(language: .fa).auditActionText("something.new") == "something.new", "an action no table knows shows its code")
        // And the kind of object each entry is about.
        let objects: [AuditObject] = [.device("t"), .topic("news"), .contactPolicy(.caps), .contactPolicy(.controlGroup)]
            + ["campaign", "journey", "segment", "webhook", "user", "api_key"].map { AuditObject(type: $0, text: UUID().uuidString.lowercased()) }
        for language in Language.allCases {
            for object in objects {
                let text = Localized(language: language).auditObjectText(object.type)
                #expect(text != object.type && !text.isEmpty, "\(language.rawValue) \(object.type)")
            }
        }
        #expect(Localized(language: .fa).auditObjectText("campaign") == "کمپین")
    }

    /// The audit page says what was done in words, the code kept beside them, in the reader's language.
    @Test(.timeLimit(.minutes(2)))
    func theAuditLogSaysEachActionInWords() async throws {
        let browser = try PagesBrowser(role: .admin)
        let herald = browser.harness.herald
        #expect(try await herald.request("POST", "/api/v1/campaigns", json: ["name": "Sale", "notification": ["title": "Hi"], "topics": ["news"]]).status == 201)
        for language in [Language.en, .fa, .he, .hi, .vi] {
            _ = browser.post("/language", [("language", language.rawValue), ("next", "/audit")])
            let html = browser.get("/audit").text
            let what = Self.label("audit.what", language)
            let created = Self.words(language).auditActionText("campaign.created")
            #expect(html.contains(#"<td data-label="\#(what)">\#(created) <code dir="ltr" class="audit-code">campaign.created</code></td>"#),
                    "\(language.rawValue): \(Self.pieces(of: html, from: "<td data-label=\"\(what)\">", to: "</td>").prefix(2))")
            #expect(!html.contains(#"<td data-label="\#(what)"><code"#), "\(language.rawValue): no action shown as its code alone")
            let object = Self.label("audit.object", language), kind = Self.words(language).auditObjectText("campaign")
            #expect(html.contains(#"<td data-label="\#(object)">\#(kind) <code dir="ltr">"#), "\(language.rawValue): the object's kind in words")
        }
    }
}
