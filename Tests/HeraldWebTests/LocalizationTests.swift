import Foundation
import HeraldHTTP
import HeraldCore
import HeraldJSON
import Testing
@testable import HeraldApp
@testable import HeraldWeb

/// The pages in English, Persian, Hebrew, Hindi and Vietnamese: every key in every table, the
/// placeholders each text fills, every page rendered in every language without a missing key,
/// dates and numbers by the language's own rules, and the language chosen per user and per request.
@Suite struct LocalizationTests {
    static let tables = StringTables.shipped.tables

    static func pluralBase(_ key: String) -> String? {
        for suffix in [".one", ".two", ".other"] where key.hasSuffix(suffix) { return String(key.dropLast(suffix.count)) }
        return nil
    }

    /// The argument positions a text fills (`%@` counts along, `%2$@` names its place); nil when it
    /// holds a `%` that is no placeholder and no `%%` (String(format:) would misread it).
    static func placeholders(_ text: String) -> [Int]? {
        var positions: [Int] = []
        var next = 1
        var rest = Substring(text)
        while let percent = rest.firstIndex(of: "%") {
            rest = rest[rest.index(after: percent)...]
            if rest.hasPrefix("%") { rest = rest.dropFirst(); continue }
            if rest.hasPrefix("@") { positions.append(next); next += 1; rest = rest.dropFirst(); continue }
            guard let match = rest.prefixMatch(of: /([1-9])\$@/) else { return nil }
            positions.append(Int(match.output.1)!)
            rest = rest[match.range.upperBound...]
        }
        return positions
    }

    @Test func everyKeyIsInEveryLanguageWithItsPluralForms() throws {
        let english = try #require(Self.tables[.en])
        let plain = Set(english.keys.filter { Self.pluralBase($0) == nil })
        let plurals = Set(english.keys.compactMap(Self.pluralBase))
        #expect(plain.count > 300, "the English table holds the pages' texts")
        for language in Language.allCases {
            let table = try #require(Self.tables[language])
            let forms = plurals.flatMap { base in PluralRules.categories(of: language).map { "\(base).\($0.rawValue)" } }
            let expected = plain.union(forms)
            #expect(expected.subtracting(table.keys).sorted() == [], "\(language.rawValue).lproj lacks these keys")
            #expect(Set(table.keys).subtracting(expected).sorted() == [], "\(language.rawValue).lproj has keys English does not")
        }
    }

    @Test func everyTextFillsTheSamePlaceholdersAsItsEnglish() throws {
        let english = try #require(Self.tables[.en])
        for language in Language.allCases {
            for (key, text) in try #require(Self.tables[language]) {
                let base = Self.pluralBase(key)
                guard let source = english[key] ?? base.flatMap({ english["\($0).other"] }) else { continue }
                guard let wanted = Self.placeholders(source), !wanted.isEmpty else {
                    #expect(!text.contains("%@") && !text.contains("%%"), "\(language.rawValue) \(key): English fills nothing here")
                    continue
                }
                let found = Self.placeholders(text)
                #expect(found != nil, "\(language.rawValue) \(key): a stray % in “\(text)”")
                guard let found else { continue }
                let used = Set(found)
                #expect(used.isSubset(of: Set(wanted)), "\(language.rawValue) \(key) fills \(found), English \(wanted)")
                // Foundation reads %2$@ wrongly when %1$@ is absent: the places used start at 1, without gaps.
                #expect(used.isEmpty || used == Set(1...used.max()!), "\(language.rawValue) \(key) skips a place: \(found)")
                if base == nil {
                    #expect(used == Set(wanted), "\(language.rawValue) \(key) fills \(found), English \(wanted)")
                } else {
                    // A plural form may spell its count out ("שתי בקשות"), never drop the other arguments.
                    #expect(Set(wanted).subtracting([1]).isSubset(of: used), "\(language.rawValue) \(key) drops an argument")
                }
            }
        }
    }

    /// The texts a template shows from the tables, by key (`{{t.…}}`).
    static func templateKeys() -> Set<String> {
        var keys: Set<String> = []
        for (_, text) in PageTemplateTests.templates {
            for match in text.matches(of: /\{\{\{?t\.([A-Za-z0-9_.-]+)\}?\}\}/) { keys.insert(String(match.output.1)) }
        }
        return keys
    }

    /// The visible text of an HTML page, one string per text node, entities left as they are.
    static func textNodes(_ html: String) -> [String] {
        let body = html.split(separator: "<body>").last.map(String.init) ?? html
        return body.split(separator: "<").compactMap { piece in
            guard let close = piece.firstIndex(of: ">") else { return nil }
            let text = piece[piece.index(after: close)...].trimmingCharacters(in: .whitespacesAndNewlines)
            return text.isEmpty ? nil : text
        }
    }

    @Test func everyPageRendersInEveryLanguageWithNoMissingKeyAndNoEnglishLabelLeft() throws {
        let english = try #require(Self.tables[.en])
        let keys = Self.templateKeys()
        #expect(keys.count > 150)
        let renderer = PageRenderer()
        for language in Language.allCases {
            let table = try #require(Self.tables[language])
            // Labels whose translation differs from the English (brand names like "Android" do not).
            let englishLabels = Set(keys.compactMap { key in english[key] != table[key] ? english[key] : nil })
            do {
                for view in try PageTemplateTests.views(in: language) {
                    let html = String(decoding: renderer.page(view).body, as: UTF8.self)
                    let page = type(of: view).template
                    #expect(!html.contains("⟦"), "\(language.rawValue) \(page): a missing key")
                    #expect(html.contains(#"<html lang="\#(language.rawValue)" dir="\#(language.direction)">"#), "\(language.rawValue) \(page)")
                    let left = Self.textNodes(html).filter(englishLabels.contains)
                    #expect(left.isEmpty, "\(language.rawValue) \(page) still shows \(left)")
                }
            }
        }
    }

    @Test func acceptLanguagePicksTheBestLanguageHeraldSpeaks() {
        #expect(Language.negotiate(nil) == .en)
        #expect(Language.negotiate("fa-IR,fa;q=0.9,en;q=0.8") == .fa)
        #expect(Language.negotiate("de-DE, he;q=0.7, en;q=0.5") == .he)
        #expect(Language.negotiate("en;q=0.4, hi-IN;q=0.9") == .hi)
        #expect(Language.negotiate("iw") == .he)
        #expect(Language.negotiate("vi;q=0, fr") == .en)
        #expect(Language.negotiate("VI-vn") == .vi)
    }

    @Test func aPersianReaderSeesTheSolarHijriDateWithTheGregorianBesideIt() {
        let persian = Localized(language: .fa).localTime("2027-03-21T09:30", zone: "Asia/Tehran")
        #expect(persian.contains("۱ فروردین ۱۴۰۶، ۰۹:۳۰"), "\(persian)")
        #expect(persian.contains("(۲۱ مارس ۲۰۲۷)") && persian.contains("Asia/Tehran"), "\(persian)")
        // English keeps the pages' one format, so what the other tests read is unchanged.
        #expect(words.localTime("2027-03-21T09:30", zone: "Asia/Tehran") == "Sun 21 Mar 2027, 09:30 Asia/Tehran")
        let hindi = Localized(language: .hi).localTime("2027-03-21T09:30", zone: "Asia/Kolkata")
        #expect(hindi.contains("२१") && hindi.contains("मार्च") && hindi.contains("२०२७") && hindi.contains("०९:३०"), "Hindi in Devanagari digits: \(hindi)")
        let hebrew = Localized(language: .he).localTime("2027-03-21T09:30", zone: "Asia/Jerusalem")
        #expect(hebrew.contains("במרץ") && hebrew.contains("9:30"), "\(hebrew)")
        let until = Localized(language: .fa).scheduleText(.daily(at: LocalTime(hour: 9, minute: 30)!, timeZone: "Asia/Tehran", until: nil))
        #expect(until.contains("۰۹:۳۰") && until.hasPrefix("هر روز"), "\(until)")
    }

    @Test func numbersPercentagesAndPluralsFollowTheLanguage() {
        #expect(Localized(language: .fa).number(1234) == "۱٬۲۳۴")
        #expect(Localized(language: .fa).percent(whole: 10) == "۱۰٪")
        #expect(Localized(language: .vi).number(1234) == "1.234")
        #expect(Localized(language: .hi).number(1234) == "१,२३४")
        #expect(words.plural("list.requests_sent", count: 1) == "1 request sent")
        #expect(words.plural("list.requests_sent", count: 3) == "3 requests sent")
        #expect(Localized(language: .he).plural("list.requests_sent", count: 2) == "שתי בקשות נשלחו")
        #expect(Localized(language: .he).plural("list.requests_sent", count: 7) == "7 בקשות נשלחו")
        #expect(Localized(language: .vi).plural("list.requests_sent", count: 1) == "Đã gửi 1 yêu cầu")
        #expect(Localized(language: .fa).plural("report.attempts", count: 3) == "۳ تلاش")
    }

    @Test func formErrorsAreTranslatedByTheirCodeAndLimit() {
        let tooLong = FieldError(path: "name", code: "too_long", message: "at most 200 characters, found 250", limit: 200)
        #expect(words.fieldError(tooLong) == "at most 200 characters, found 250", "English keeps the contract's message")
        #expect(Localized(language: .fa).fieldError(tooLong) == "حداکثر ۲۰۰ نویسه")
        #expect(Localized(language: .vi).fieldError(tooLong) == "tối đa 200 ký tự")
        let odd = FieldError(path: "x", code: "no_such_code", message: "odd")
        #expect(Localized(language: .he).fieldError(odd) == "לא תקין")
    }

    @Test func aPlansWarningsReadInTheLanguageAndAsTheAPIsEnglish() {
        let warnings: [PlanWarning] = [.splitCondition(topics: 7, conditions: 2), .noBucket(variant: "B", buckets: 20), .unknownVariant("Z"),
                                       .wholeAudienceTested, .noRoomForBuckets(maximumTopics: 4)]
        for warning in warnings {
            #expect(words.planWarning(warning) == warning.message, "the English table says what the API says")
        }
        let persian = Localized(language: .fa).planWarning(.splitCondition(topics: 7, conditions: 2))
        #expect(persian.hasPrefix("۷ موضوع") && persian.contains("۲ شرط"), "\(persian)")
    }

    // MARK: - Through the server

    @Test func aUserChoosesTheirLanguageOnceAndEveryPageFollowsIt() throws {
        let browser = try PagesBrowser(role: .editor)
        let english = String(decoding: browser.get("/campaigns").body, as: UTF8.self)
        #expect(english.contains(#"<html lang="en" dir="ltr">"#) && english.contains("<h1>Campaigns</h1>"))
        #expect(english.contains(#"action="/language""#), "the switcher is on the page")

        let switched = browser.post("/language", [("language", "fa"), ("next", "/campaigns/new")])
        #expect(switched.status == 200)
        let composer = String(decoding: switched.body, as: UTF8.self)
        #expect(composer.contains(#"<html lang="fa" dir="rtl">"#), "back on the page it came from, in Persian")
        #expect(composer.contains("زمان‌بندی") && composer.contains("ذخیره و بازبینی"))

        // Stored on the user: another request (Accept-Language, a visitor's ?lang=) does not change it.
        #expect(String(decoding: browser.get("/campaigns?lang=vi").body, as: UTF8.self).contains(#"<html lang="fa" dir="rtl">"#))
        let list = browser.harness.send(.get, "/campaigns", headers: [browser.cookie, ("Accept-Language", "vi")])
        #expect(String(decoding: list.body, as: UTF8.self).contains("<h1>کمپین‌ها</h1>"))

        // A form error in Persian, beside its field.
        let saved = browser.post("/campaigns", [("name", ""), ("title", "سلام"), ("body", "متن"), ("target_kind", "topics"),
                                                ("topics", "bad topic"), ("schedule_kind", "none"), ("message_kind", "notification")])
        let page = String(decoding: saved.body, as: UTF8.self)
        #expect(saved.status == 422)
        #expect(page.contains("کمپین ذخیره نشد"), "the error summary is Persian")
        #expect(!page.contains("⟦"))

        let refused = browser.post("/language", [("language", "xx"), ("next", "/campaigns")])
        #expect(refused.status == 422, "only Herald's languages")
    }

    /// The English of the table left in a page of another language: each English text's longest
    /// run of words between its placeholders (12 characters or more, so not a brand or a code),
    /// where that language's text of the key differs, found in the page's visible text.
    static func englishLeft(in html: String, language: Language) -> [String] {
        let english = tables[.en] ?? [:], own = tables[language] ?? [:]
        let visible = textNodes(html).joined(separator: "\n")
        var left: Set<String> = []
        for (key, text) in english where own[key] != text {
            let pieces = text.split(separator: /%(\d\$)?@/).map { String($0).trimmingCharacters(in: .whitespacesAndNewlines.union(.punctuationCharacters)) }
            guard let longest = pieces.max(by: { $0.count < $1.count }), longest.count >= 12, longest.contains(" ") else { continue }
            if visible.contains(longest) { left.insert("\(key): \(longest)") }
        }
        return left.sorted()
    }

    /// Every page a marketer and an admin use, with real data through the server (a segment
    /// campaign with variants, an approval asked, recipient time, devices, a segment, keys and
    /// the audit log), read in Persian, Hebrew, Hindi and Vietnamese: no English text of the
    /// English table is left in any.
    @Test(.timeLimit(.minutes(5)))
    func noPageInAnotherLanguageShowsEnglishOfTheTable() async throws {
        let browser = try PagesBrowser(role: .admin, environment: ["HERALD_APPROVALS": "on", "HERALD_SCHEDULER": "false"])
        let herald = browser.harness.herald
        for token in ["tok-fa", "tok-he"] {
            _ = try await herald.request("PUT", "/api/v1/devices/\(token)", json: ["platform": "android", "language": "fa", "properties": ["city": "Tehran"]])
        }
        let segment = try #require(try await herald.request("POST", "/api/v1/segments", json: [
            "name": "VIP", "rule": ["all": [["field": "language", "in": ["fa", "he"]], ["property": "city", "equals": "Tehran"]]]]).json?["id"]?.stringValue)
        let toSegment = try #require(try await herald.request("POST", "/api/v1/campaigns", json: [
            "name": "VIP", "notification": ["title": "Hi {{first_name | default: \"friend\"}}"], "segment": .string(segment),
            "variants": [["key": "A", "weight": 1], ["key": "B", "weight": 1, "notification": ["body": "Other"]]], "holdout_percent": 10,
            "schedule": ["kind": "weekly", "days": ["mon", "sat"], "time": "09:00", "time_zone": "Asia/Tehran"],
            "delivery": ["recipient_time": ["past": "skip"]]]).json?["id"]?.stringValue)
        let toTopics = try #require(try await herald.request("POST", "/api/v1/campaigns", json: [
            "name": "News", "notification": ["title": "Hi", "body": "Text"], "topics": ["news"]]).json?["id"]?.stringValue)
        // A webhook with a delivery waiting in its log (the scheduler, and so the dispatcher, is off).
        let webhook = try #require(try await herald.request("POST", "/api/v1/webhooks", json: [
            "url": "https://crm.example.com/hook", "events": ["approval.requested"], "description": "CRM"]).json?["id"]?.stringValue)
        #expect(try await herald.request("POST", "/api/v1/campaigns/\(toTopics)/submit", headers: ["If-Match": "\"1\""]).status == 200)
        let pages = ["/campaigns", "/campaigns/new", "/campaigns/\(toSegment)/edit", "/campaigns/\(toSegment)/review", "/campaigns/\(toSegment)/report",
                     "/campaigns/\(toTopics)/review", "/devices", "/segments", "/segments/\(segment)", "/users", "/api-keys", "/audit",
                     "/webhooks", "/webhooks/\(webhook)"]
        // The check sees English where there is English: the composer in English, read as Persian.
        #expect(Self.englishLeft(in: browser.get("/campaigns/\(toSegment)/review").text, language: .fa).count >= 10)
        for language in Language.allCases where language != .en {
            _ = browser.post("/language", [("language", language.rawValue), ("next", "/campaigns")])
            for page in pages {
                let response = browser.get(page)
                #expect(response.status == 200, "\(language.rawValue) \(page)")
                let left = Self.englishLeft(in: response.text, language: language)
                #expect(left.isEmpty, "\(language.rawValue) \(page) shows English: \(left)")
            }
            // The confirmations an irreversible action asks first, without script (nothing is done: not confirmed).
            for action in ["pause", "resume", "publish", "cancel", "delete"] {
                let response = browser.post("/campaigns/\(toTopics)/\(action)", [("version", "1")])
                #expect(response.status == 200 && response.text.contains("confirm-panel"), "\(language.rawValue) \(action): \(response.status)")
                let left = Self.englishLeft(in: response.text, language: language)
                #expect(left.isEmpty, "\(language.rawValue) \(action) confirmation shows English: \(left)")
            }
            let deleting = browser.post("/webhooks/\(webhook)/delete", [])
            #expect(deleting.status == 200 && deleting.text.contains("confirm-panel"))
            #expect(Self.englishLeft(in: deleting.text, language: language).isEmpty, "\(language.rawValue) webhook deletion confirmation")
        }
    }

    @Test func aSignedOutVisitorGetsTheirBrowsersLanguage() throws {
        let harness = try AccessHarness()
        let page = String(decoding: harness.send(.get, "/sign-in", headers: [("Accept-Language", "he-IL,he;q=0.9")]).body, as: UTF8.self)
        #expect(page.contains(#"<html lang="he" dir="rtl">"#) && page.contains("כניסה ל-Herald"))
        // The top bar's form (a GET, so it needs no session) picks another, and the sign-in form keeps it.
        #expect(page.contains(#"<form class="language" method="get" action="/sign-in">"#))
        let hindi = String(decoding: harness.send(.get, "/sign-in?next=%2Fcampaigns&lang=hi", headers: [("Accept-Language", "he")]).body, as: UTF8.self)
        #expect(hindi.contains(#"<html lang="hi" dir="ltr">"#) && hindi.contains(#"action="/sign-in?lang=hi""#))
        #expect(hindi.contains(#"<input type="hidden" name="next" value="/campaigns">"#), "the page asked for after signing in is kept")
    }

    @Test func apiProblemsSpeakTheAcceptLanguageAndKeepTheirCodes() throws {
        let harness = try AccessHarness()
        let missing = harness.send(.get, "/api/v1/nothing-here", headers: [("Accept-Language", "fa")])
        let problem = try JSON.parse(missing.body)
        #expect(missing.status == 404)
        #expect(problem["code"]?.stringValue == "not_found" && problem["title"]?.stringValue == "پیدا نشد")
        #expect(problem["detail"]?.stringValue?.contains("/api/v1/nothing-here") == true)

        let key = try harness.key(.editor)
        let invalid = harness.send(.post, "/api/v1/campaigns", headers: [("Authorization", "Bearer \(key)"), ("Content-Type", "application/json"),
                                                                          ("Accept-Language", "vi")], body: Array(#"{"name": ""}"#.utf8))
        let refusal = try JSON.parse(invalid.body)
        #expect(invalid.status == 422 && refusal["code"]?.stringValue == "validation_failed")
        #expect(refusal["title"]?.stringValue == "Yêu cầu không hợp lệ", "\(refusal)")
        let codes = (refusal["errors"]?.arrayValue ?? []).compactMap { $0["code"]?.stringValue }
        #expect(codes.contains("required"), "machine codes stay")

        let english = try JSON.parse(harness.send(.get, "/api/v1/nothing-here").body)
        #expect(english["title"]?.stringValue == "Not found")

        // A missing campaign is named in every language, as in English ("Campaign … does not exist.").
        let id = "3f2c9d7e-0000-4000-8000-000000000001"
        let persian = try JSON.parse(harness.send(.get, "/api/v1/campaigns/\(id)", headers: [("Authorization", "Bearer \(key)"), ("Accept-Language", "fa")]).body)
        #expect(persian["detail"]?.stringValue == "کمپین \u{2068}\(id)\u{2069} وجود ندارد.", "\(persian)")
        let inEnglish = try JSON.parse(harness.send(.get, "/api/v1/campaigns/\(id)", headers: [("Authorization", "Bearer \(key)")]).body)
        #expect(inEnglish["detail"]?.stringValue == "Campaign \(id) does not exist.")
    }
}
