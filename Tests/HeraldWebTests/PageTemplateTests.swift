import Foundation
import HeraldCore
import HeraldHTTP
import HeraldJSON
import Testing
@testable import HeraldApp
@testable import HeraldWeb

/// Every key a page template reads names a property of its view model. swift-mustache renders a
/// key it cannot find as nothing, so a misspelt or stale key would otherwise show up only as a
/// silently empty field. Each template is walked as it renders a typical, fully filled view: a
/// section opens on the value it would push, an inverted one is checked in place, and partials
/// and the layout are followed.
@Suite struct PageTemplateTests {
    /// The report's verdict never claims certainty: a p below four decimals reads "p < 0.0001"
    /// and "over 99.9% confidence" (it read "100.0% confidence", p = 0.0000).
    @Test func theVerdictNeverClaimsCertainty() {
        #expect(CampaignPages.verdictText(.leads(key: "B", baseline: "A", pValue: 1e-9), words: words)
                == "Variant B leads: it beats A with over 99.9% confidence (one-tailed p < 0.0001).")
        #expect(CampaignPages.verdictText(.leads(key: "B", baseline: "A", pValue: 0.01), words: words)
                == "Variant B leads: it beats A with 99.0% confidence (one-tailed p = 0.0100).")
    }

    static let templates = Dictionary(uniqueKeysWithValues: PageRenderer.templates.map { ($0.name, String(decoding: $0.bytes, as: UTF8.self)) })

    /// The key paths in `template` that no object on the rendering stack answers.
    static func unresolvedKeys(_ template: String, stack: [Any]) -> [String] {
        var stack = stack
        var opened: [Bool] = []  // per open tag: whether it pushed onto the stack
        var skipping = 0  // inside a section whose value would not render it
        var unresolved: [String] = []
        let tags = (templates[template] ?? "").matches(of: #/\{\{\{?\s*([#^/>$<&!]?)\s*([^}\s]*)\s*\}?\}\}/#)
        for tag in tags {
            let (sigil, key) = (String(tag.output.1), String(tag.output.2))
            if sigil == "!" { continue }
            if sigil == "/" {
                if opened.removeLast() { stack.removeLast() }
                skipping = max(skipping - 1, 0)
                continue
            }
            if skipping > 0 {
                if "#^$<".contains(sigil) { opened.append(false); skipping += 1 }
                continue
            }
            switch sigil {
            case "$": opened.append(false); continue
            case "<": opened.append(false); unresolved += unresolvedKeys(key, stack: stack); continue
            case ">": unresolved += unresolvedKeys(key, stack: stack); continue
            default: if key == "." { continue }
            }
            let found = resolve(key, in: stack)
            if found == nil { unresolved.append("\(template): \(key)") }
            guard sigil == "#" || sigil == "^" else { continue }
            // An inverted section renders in place; a section pushes its value, or its first item.
            switch sigil == "#" ? found ?? nil : true {
            case let list as [Any] where !list.isEmpty: stack.append(list[0]); opened.append(true)
            case nil, is [Any]: opened.append(false); skipping = 1
            case is Bool: opened.append(false)
            case let value?: stack.append(value); opened.append(true)
            }
        }
        return unresolved
    }

    /// The value of a dotted key as swift-mustache finds it (the first object up the stack with
    /// the first name); nil when nothing answers, `.some(nil)` for an Optional that is nil.
    static func resolve(_ key: String, in stack: [Any]) -> Any?? {
        let names = key.split(separator: ".").map(String.init)
        // `t.…` is a text of the string tables (`TemplateTexts`): the key must be in the English one.
        if names[0] == "t" {
            let textKey = names.dropFirst().joined(separator: ".")
            return StringTables.shipped.tables[.en]?[textKey] == nil ? nil : .some(textKey)
        }
        for object in stack.reversed() {
            guard var value = child(names[0], of: object) else { continue }
            for name in names.dropFirst() {
                guard let object = value else { return .some(nil) }
                guard let next = child(name, of: object) else { return nil }
                value = next
            }
            return .some(value)
        }
        return nil
    }

    static func child(_ name: String, of object: Any) -> Any?? {
        if let map = object as? [String: Any] { return map[name].map { .some($0) } }
        guard let value = Mirror(reflecting: object).children.first(where: { $0.label == name })?.value else { return nil }
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return .some(value) }
        return .some(mirror.children.first?.value)
    }

    // MARK: - Typical views

    static let viewer = Viewer(userID: UserID("00000000-0000-4000-8000-0000000000a1"), email: "admin@example.com", role: .admin, csrfToken: "csrf")
    static func chrome(_ words: Localized) -> PageChrome { PageChrome(title: "Title", words: words, viewer: viewer, flash: ["Draft saved."]) }

    static func context(_ language: Language) -> RequestContext {
        var context = RequestContext(request: HTTPRequest(method: .get, target: "/"), requestID: "r1", clientAddress: "127.0.0.1", host: "herald.example",
                                     viewer: viewer, log: RequestLog(log: Log(minimum: .error), requestID: "r1", method: "GET", path: "/"))
        context.language = language
        return context
    }

    static func record() throws -> CampaignRecord {
        let spec = try CampaignForm(fields: CampaignFormTests.fields()).parse(words: words).get()
        return CampaignRecord(id: CampaignID("00000000-0000-4000-8000-0000000000c1")!, name: spec.name, status: .draft, version: 2, content: spec.toJSON(), author: nil,
                              createdAt: Date(timeIntervalSince1970: 1_795_858_200), updatedAt: Date(timeIntervalSince1970: 1_795_858_200))
    }

    /// Every page's view, its texts in `language`.
    static func views(in language: Language = .en) throws -> [any PageView] {
        let words = Localized(language: language), chrome = chrome(words), context = context(language)
        let record = try record()
        let row = CampaignRow(record, viewer: viewer, words: words)
        var errors = FormErrors()
        for field in ["form", "name", "variant_key_0"] { errors.add(field, "is wrong") }
        let form = CampaignForm(fields: CampaignFormTests.fields([("image_url", "https://example.com/a.png")]))
        let conflict = ConflictView(current: record, yours: ["name": "Mine"], yourVersion: 1, words: words)
        let user = UserRecord(id: try #require(UserID("00000000-0000-4000-8000-0000000000a2")), email: "e@example.com", role: .editor, disabled: false, createdAt: Date(timeIntervalSince1970: 1_795_824_000))
        let key = APIKeyRecord(id: try #require(APIKeyID("00000000-0000-4000-8000-0000000000b1")), name: "ci", prefix: "hk_abc", role: .editor, scope: .full, createdBy: "admin",
                               createdAt: Date(timeIntervalSince1970: 1_795_824_000), lastUsedAt: nil, revokedAt: nil)
        let entry = AuditEntry(id: 1, at: Date(timeIntervalSince1970: 1_795_824_000), actor: "admin", userID: nil, apiKeyID: nil, action: "user.created",
                               object: .user(user.id), address: "127.0.0.1", details: ["role": "editor"])
        let run = RunProgress(id: try #require(RunID("00000000-0000-4000-8000-000000000001")), status: .sent, planned: 2, warnings: [],
                              dueAt: Date(timeIntervalSince1970: 1_795_858_200), startedAt: Date(timeIntervalSince1970: 1_795_858_200),
                              finishedAt: Date(timeIntervalSince1970: 1_795_858_260),
                              variants: [.init(key: "A", counts: .init(planned: 1, sent: 1))])
        let failure = DeliveryRecord(id: 1, runID: run.id, variant: "A", target: .topic("news"), status: .failed, attempts: 1,
                                     error: .init(code: "INVALID_ARGUMENT", message: "no"))
        var deviceCounts = DeviceCounts()
        deviceCounts.byStatus = [.active: 2, .invalid: 1]
        deviceCounts.byPlatform = [("android", 2)]
        deviceCounts.byLanguage = [("fa", 2)]
        deviceCounts.byCountry = [("IR", 2)]
        deviceCounts.byAppVersion = [("5.2", 2)]
        let storedDevice = StoredDevice(device: Device(token: "tok-a", platform: .android, language: "fa-IR", lastSeen: Date(timeIntervalSince1970: 1_795_858_200)),
                                        registeredAt: Date(timeIntervalSince1970: 1_795_858_200), status: .invalid, invalidReason: "UNREGISTERED")
        var importReport = DeviceImportReport()
        importReport.rows = 2
        importReport.fail(line: 2, FieldError(path: "token", code: "invalid_token", message: "holds a space"))
        let webhookID = try #require(WebhookID("00000000-0000-4000-8000-0000000000e1"))
        let webhook = Webhook(id: webhookID, url: "https://crm.example.com/hook", events: [.runFinished], description: "The CRM",
                              createdBy: "ana@example.com", createdAt: Date(timeIntervalSince1970: 1_795_600_000), pending: 2, dead: 1)
        let delivery = WebhookDelivery(id: 7, webhookID: webhookID, eventID: WebhookEventID("6f1d2c3b-0000-4000-8000-000000000001")!, eventType: "run.finished", status: .pending, attempts: 3,
                                       nextAttemptAt: Date(timeIntervalSince1970: 1_795_600_100), lastAttemptAt: Date(timeIntervalSince1970: 1_795_600_050),
                                       responseStatus: 503, lastError: "The receiver answered HTTP 503.", createdAt: Date(timeIntervalSince1970: 1_795_600_000),
                                       deliveredAt: nil, body: "{}")
        var figures = DeliveryFigures()
        figures.accepted = 10
        figures.counts = [.messageOutcomePercents: ["delivered": 9, "droppedDeviceInactive": 1], .deliveryPerformancePercents: ["delayedDeviceDoze": 2]]
        figures.firstDay = "2026-11-25"
        figures.lastDay = "2026-11-26"
        var segmentErrors = FormErrors()
        for field in ["name", "row_0", "rule_json"] { segmentErrors.add(field, "is wrong") }
        return [
            SignInView(next: "/campaigns", email: "e@example.com", csrfToken: "t", error: "Wrong password.", words: words),
            MessageView(context, heading: "Not found", text: "Gone."),
            AccessDeniedView(context, message: "Admins only."),
            UsersView(chrome: chrome, users: [UsersView.Row(user, viewer: viewer, words: words)], roles: UsersView.roles(words), error: "Refused."),
            APIKeysView(chrome: chrome, keys: [APIKeysView.Row(key, words: words)], roles: UsersView.roles(words), created: .init(key: "hk_secret", name: "ci"), error: "Refused."),
            AuditView(chrome: chrome, entries: [AuditView.Row(entry, words: words)], next: "5"),
            CampaignListView(chrome: chrome, q: "sale", filtered: true, paged: true, statuses: [Choice("draft", text: "Draft", selected: true)],
                             campaigns: [row], empty: false, next: "/campaigns?cursor=x"),
            ComposerView(chrome: chrome, form: form, errors: errors, campaignID: "c1", status: .draft, conflict: conflict),
            ReviewView(chrome: chrome, campaign: row, variants: ReviewView.variants(try record.spec(), words: words),
                       requests: [.init(number: 1, first: true, variant: "A", bytes: 200, body: "{}", words: words)], warnings: ["Check it."],
                       labels: .init(LabelForecast(used: 98, chosen: .perVariant, resolved: .perVariant, added: 4), words: words),
                       holdout: 10, hasHoldout: true, holdoutText: words.text("review.holdout", words.percent(whole: 10)),
                       actions: .init(scheduleLabel: "Schedule for Fri 20 Mar 2026, 09:30 Asia/Tehran", sendNowLabel: "Send now to news",
                                      sendNowQuestion: "Send?", nextRun: .init(text: "Fri 20 Mar 2026, 09:30 Asia/Tehran",
                                                                               utc: "Fri 20 Mar 2026, 06:00 UTC", iso: "2026-03-20T06:00:00Z", local: nil, lastWave: nil),
                                      scheduleProblem: "Past.", canCancel: true, canPause: true, canResume: true),
                       canTest: true, sendingConfigured: true,
                       tokens: "t1", tokensLabel: words.text("review.test.tokens", words.number(CampaignLimits.testTokens)), variantKeys: [Choice("A", selected: true), Choice("B")], actionError: "Refused.", testError: "Bad token.",
                       tests: [.init(TestSend.Result(token: "t1", outcome: .sent(name: "projects/p/messages/1"), attempts: 1), words: words)], hasTests: true),
            ConfirmView(chrome: chrome, heading: "Send now?", text: "It goes now.", action: "/campaigns/c1/publish",
                        fields: [.init(name: "version", value: "3")], confirmLabel: "Send now to news", danger: true, back: "/campaigns/c1/review"),
            ReportView(chrome: chrome, campaign: row, runs: [ReportView.Run(run, words: words)], noRuns: false, sending: true, planned: 2, done: 1,
                       progressPercent: 50, progressText: words.text("report.progress", "1", "2"), progressPercentText: words.percent(whole: 50),
                       variants: [.init(key: "A", baseline: true, sent: "1", failed: "0", opens: "10", conversions: "2", rate: "20.0%",
                                        difference: "+1.0 pts", interval: "−1.0 pts to +3.0 pts", confidence: "80.0%")],
                       verdict: "Not enough data yet.", rule: "a winner is called only once every variant has at least 100 opens",
                       failures: [ReportView.Failure(failure, words: words)], chart: "<svg></svg>",
                       deliveryChart: "<svg></svg>", trendChart: "<svg></svg>", hasDeliveryData: true, hasEventData: true, hasTrend: true,
                       winnerOffer: .init(choices: [Choice("A", selected: true)], question: "Send?", holdoutPercent: 10, label: words.text("report.winner.label", words.percent(whole: 10))),
                       winnerSent: "B", winnerSentText: words.text("report.winner.sent", "B"), devicesLine: "Devices reached: 2.",
                       fcm: .init(CampaignDelivery(variants: ["A": figures], wholeCampaign: figures, fetchedAt: Date(timeIntervalSince1970: 1_795_600_000)),
                                  variantKeys: ["A"], canRefresh: true, words: words)),
            DevicesView(chrome: chrome, counts: deviceCounts, devices: [storedDevice], filter: DeviceFilter(status: .active, search: "tok"),
                        next: "tok-b", report: importReport, error: "Refused."),
            DeviceTopicsView(chrome: chrome, device: storedDevice, topics: [DeviceTopic(topic: "news", createTime: "2026-11-27T04:41:44.5Z")]),
            SegmentsView(chrome: chrome, segments: [.init(id: "s1", name: "Persian", devices: "2", updatedAt: "Mon 23 Nov 2026, 09:30 UTC", usedBy: "Spring sale")],
                         editor: SegmentEditor(form: SegmentForm(), id: nil, errors: segmentErrors, reach: LiveReach(devices: 2), canEdit: true, words: words)),
            SegmentView(chrome: chrome, editor: SegmentEditor(form: SegmentForm(), id: "s1", errors: segmentErrors, reach: LiveReach(devices: 2), canEdit: true, words: words),
                        deleteQuestion: "Delete?"),
            WebhooksView(chrome: chrome, webhooks: [webhook], created: CreatedWebhook(webhook: webhook, secret: "whsec_x"), error: "Refused.",
                         url: "https://crm.example.com/hook", description: "The CRM", chosen: ["run.finished"]),
            WebhookLogView(chrome: chrome, webhook: WebhooksView.Row(webhook, words: words), deliveries: [WebhookLogView.Row(delivery, words: words)], next: "5"),
            ContactPolicyView(chrome: chrome, policy: ContactPolicy(caps: FrequencyCaps(marketing: .init(day: 2), categories: ["news": .init(hour: 1)])),
                              canChange: true, caps: nil, percent: nil, error: "Refused.", from: Date(timeIntervalSince1970: 0),
                              to: Date(timeIntervalSince1970: 86_400),
                              report: ControlGroupReport(from: Date(timeIntervalSince1970: 0), to: Date(timeIntervalSince1970: 86_400), basisPoints: 500,
                                                         since: Date(timeIntervalSince1970: 0),
                                                         control: .init(devices: 200, opened: 20, converted: 5), rest: .init(devices: 3800, opened: 500, converted: 120))),
        ] + JourneyPageFixtures.views(chrome: chrome)
    }

    @Test func everyKeyOfEveryPageNamesAPropertyOfItsView() throws {
        let views = try Self.views()
        let pages = Set(Self.templates.keys).subtracting(["layout", "preview", "composer-variant", "composer-data-row", "segment-editor"])
        #expect(Set(views.map { type(of: $0).template }) == pages, "a typical view for every page template")
        for view in views {
            let unresolved = Self.unresolvedKeys(type(of: view).template, stack: [view])
            #expect(unresolved.isEmpty, "\(type(of: view)): \(unresolved)")
        }
    }

    /// Unescaped output (`{{{…}}}`) is only for markup Herald draws itself: the report's charts, the journey's diagram and
    /// the few texts of its own string tables that carry `<code>` or `<strong>`.
    @Test func onlyTheChartsAreUnescaped() {
        for (name, text) in Self.templates {
            let raw = text.matches(of: #/\{\{(\{|&)\s*([^}\s]*)/#).map { String($0.output.2) }
            #expect(Set(raw.filter { !$0.hasPrefix("t.") }).isSubset(of: ["chart", "deliveryChart", "trendChart", "diagram"]), "\(name): \(raw)")
        }
    }
}
