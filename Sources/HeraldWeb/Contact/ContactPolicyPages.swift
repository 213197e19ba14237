import FCMMessage
import Foundation
import HeraldApp
import HeraldCore
import HeraldHTTP
import HeraldJSON

/// `/contact-policy`: the frequency caps and the control group (admins change them, everyone
/// reads them), and the control group's comparison with everyone else over a period.
struct ContactPolicyPages: Sendable {
    let policies: ContactPolicyService
    let pages: PageRenderer

    func show(_ context: RequestContext) throws -> HTTPResponse { try page(context) }

    /// Saves the caps from the form: a row for every marketing message, and one per category.
    func saveCaps(_ context: RequestContext) throws -> HTTPResponse {
        let words = context.words
        let rows = ContactPolicyView.CapRow.rows(from: context.form)
        var problems: [String] = []
        var categories = JSONObject()
        var marketing = JSONObject()
        for row in rows {
            var limits = JSONObject()
            for (window, text) in [("hour", row.hour), ("day", row.day), ("week", row.week)] where !text.trimmingSpaces.isEmpty {
                guard let value = Int(text.trimmingSpaces) else {
                    problems.append(words.text("contact.caps.whole_number", words.isolate(text)))
                    continue
                }
                limits[window] = .number(Double(value))
            }
            if row.isMarketing { marketing = limits } else if !row.category.trimmingSpaces.isEmpty { categories[row.category.trimmingSpaces] = .object(limits) }
        }
        guard problems.isEmpty else { return try page(context, caps: rows, error: problems.joined(separator: " "), status: 422) }
        do {
            _ = try policies.setCaps(["marketing": .object(marketing), "categories": .object(categories)],
                                     expectedVersion: Int(context.form.value("version") ?? ""), by: context.actor)
            return try page(context, message: words.text("contact.caps.saved"))
        } catch let error as AppError where AccountsPages.shownInPage(error) {
            return try page(context, caps: rows, error: words.message(error), status: ProblemRenderer.problem(for: error, words: words).status)
        }
    }

    func saveControlGroup(_ context: RequestContext) throws -> HTTPResponse {
        let words = context.words
        let text = (context.form.value("percent") ?? "").trimmingSpaces
        guard let percent = Double(text) else {
            return try page(context, percent: text, error: words.text("contact.control.number", words.isolate(text)), status: 422)
        }
        do {
            _ = try policies.setControlGroup(["percent": .number(percent), "reshuffle": .bool(context.form.value("reshuffle") != nil)],
                                             expectedVersion: Int(context.form.value("version") ?? ""), by: context.actor)
            return try page(context, message: words.text("contact.control.saved"))
        } catch let error as AppError where AccountsPages.shownInPage(error) {
            return try page(context, percent: text, error: words.message(error), status: ProblemRenderer.problem(for: error, words: words).status)
        }
    }

    private func page(_ context: RequestContext, caps: [ContactPolicyView.CapRow]? = nil, percent: String? = nil, message: String? = nil,
                      error: String? = nil, status: Int = 200) throws -> HTTPResponse {
        let words = context.words
        let policy = try policies.policy()
        // The period's days (UTC), from the query; the last 28 days by default.
        let today = Date()
        func day(_ name: String) -> Date? {
            context.query(name).flatMap { RFC3339.secondsSince1970($0 + "T00:00:00Z") }.map { Date(timeIntervalSince1970: $0) }
        }
        let to = day("to").map { $0.addingTimeInterval(86_400) } ?? today
        let from = day("from") ?? to.addingTimeInterval(-28 * 86_400)
        let report = from < to ? try policies.controlGroupReport(from: from, to: to) : nil
        let chrome = PageChrome(context, title: words.text("nav.contact_policy"), flash: message.map { [$0] } ?? [])
        return pages.page(ContactPolicyView(chrome: chrome, policy: policy, canChange: context.viewer?.role == .admin, caps: caps, percent: percent,
                                            error: error, from: from, to: to.addingTimeInterval(-86_400), report: report), status: status)
    }
}

/// The page's view: the caps as rows, the control group, the comparison.
struct ContactPolicyView: PageView {
    static let template = "contact-policy"

    /// One row of the caps' table: every marketing message, or one category.
    struct CapRow: Sendable {
        let isMarketing: Bool
        let category: String
        let hour: String
        let day: String
        let week: String

        /// The rows the form posted: the marketing row, then `category` rows in order.
        static func rows(from form: PostedForm) -> [CapRow] {
            func values(_ name: String) -> [String] { form.fields.filter { $0.name == name }.map(\.value) }
            let names = values("category"), hours = values("category_hour"), days = values("category_day"), weeks = values("category_week")
            func at(_ list: [String], _ index: Int) -> String { list.indices.contains(index) ? list[index] : "" }
            return [CapRow(isMarketing: true, category: "", hour: form.value("marketing_hour") ?? "", day: form.value("marketing_day") ?? "",
                           week: form.value("marketing_week") ?? "")]
                + names.indices.map { CapRow(isMarketing: false, category: names[$0], hour: at(hours, $0), day: at(days, $0), week: at(weeks, $0)) }
                    .filter { !($0.category + $0.hour + $0.day + $0.week).trimmingSpaces.isEmpty }
        }

        static func rows(from caps: FrequencyCaps) -> [CapRow] {
            func text(_ value: Int?) -> String { value.map(String.init) ?? "" }
            return [CapRow(isMarketing: true, category: "", hour: text(caps.marketing.hour), day: text(caps.marketing.day), week: text(caps.marketing.week))]
                + caps.categories.sorted { $0.key < $1.key }.map {
                    CapRow(isMarketing: false, category: $0.key, hour: text($0.value.hour), day: text($0.value.day), week: text($0.value.week))
                }
        }
    }

    /// A line of the comparison: a group's devices and what they did.
    struct GroupLine: Sendable {
        let name: String
        let devices: String
        let opened: String
        let openRate: String
        let converted: String
        let conversionRate: String
    }

    let chrome: PageChrome
    let canChange: Bool
    let version: String
    let marketing: CapRow
    let categories: [CapRow]
    let percent: String
    let since: String
    let error: String?
    let from: String
    let to: String
    let groups: [GroupLine]
    let findings: [String]

    init(chrome: PageChrome, policy: ContactPolicy, canChange: Bool, caps: [CapRow]?, percent: String?, error: String?,
         from: Date, to: Date, report: ControlGroupReport?) {
        let words = chrome.words
        self.chrome = chrome
        self.canChange = canChange
        version = String(policy.version)
        let rows = caps ?? CapRow.rows(from: policy.caps)
        marketing = rows.first { $0.isMarketing } ?? CapRow(isMarketing: true, category: "", hour: "", day: "", week: "")
        // Room for three more categories.
        categories = rows.filter { !$0.isMarketing } + Array(repeating: CapRow(isMarketing: false, category: "", hour: "", day: "", week: ""), count: 3)
        self.percent = percent ?? words.decimal(Double(policy.controlGroup.basisPoints) / 100, digits: 2)
        since = words.shortTime(RFC3339.utc(secondsSince1970: policy.controlSince.timeIntervalSince1970))
        self.error = error
        func day(_ date: Date) -> String { String(RFC3339.utc(secondsSince1970: date.timeIntervalSince1970).prefix(10)) }
        self.from = day(from)
        self.to = day(to)
        func rate(_ part: Int, _ whole: Int) -> String { whole > 0 ? words.percent(Double(part) / Double(whole), digits: 1) : "–" }
        groups = report.map { report in
            [(words.text("contact.compare.control"), report.control), (words.text("contact.compare.everyone_else"), report.rest)].map { name, side in
                GroupLine(name: name, devices: words.number(side.devices), opened: words.number(side.opened), openRate: rate(side.opened, side.devices),
                          converted: words.number(side.converted), conversionRate: rate(side.converted, side.devices))
            }
        } ?? []
        findings = ControlGroupReport.Metric.allCases.compactMap { metric in
            guard let compared = report?.comparison(metric) else { return nil }
            let what = words.text("contact.compare.\(metric.rawValue)")
            guard compared.enoughData else { return words.text("contact.compare.not_enough", what) }
            return words.text("contact.compare.finding", what,
                                  compared.lift.map { words.percent($0, digits: 1) } ?? "–",
                                  words.percent(compared.interval.lowerBound, digits: 2), words.percent(compared.interval.upperBound, digits: 2),
                                  words.decimal(compared.pValue, digits: 4))
        }
    }
}
