import FCMMessage
import Foundation
import HeraldApp
import HeraldCore

/// `/devices`: how many devices Herald knows, by state and by what segments filter on; a search;
/// the CSV import with its report; the export.
struct DevicesView: PageView {
    /// A value and its devices, counted in the page's digits.
    struct Count: Sendable {
        let value: String
        let devices: String
    }

    struct Row: Sendable {
        let token: String
        let platform: String
        let language: String
        let country: String
        let appVersion: String
        let status: String
        let statusText: String
        /// Why FCM refused the token; nil (no parentheses) for a device it has not refused.
        let invalidReason: String?
        let lastSeen: String
        /// Registered by its Firebase installation ID: the list marks it, as FCM addresses it by `fid`.
        let isFID: Bool
        /// The push token of its Live Activity (iOS), which Live Activity campaigns send to; nil without one.
        let liveActivityToken: String?

        init(_ stored: StoredDevice, words: Localized) {
            token = stored.device.token
            isFID = stored.device.kind == .fid
            liveActivityToken = stored.device.liveActivityToken
            platform = stored.device.platform.rawValue
            language = stored.device.language ?? ""
            country = stored.device.country ?? ""
            appVersion = stored.device.appVersion ?? ""
            status = stored.status.rawValue
            statusText = words.text("devices.status.\(stored.status.rawValue)")
            invalidReason = stored.invalidReason.flatMap { $0.isEmpty ? nil : $0 }
            lastSeen = stored.device.lastSeen.map(words.shortTime) ?? ""
        }
    }

    struct ImportLine: Sendable {
        /// The refused row's line in the file, in the page's digits.
        let line: String
        let field: String
        let message: String
    }

    static let template = "devices"
    let chrome: PageChrome
    /// The counts by state, in the page's digits.
    let active: String
    let invalid: String
    let stale: String
    let platforms: [Count]
    let languages: [Count]
    let countries: [Count]
    let appVersions: [Count]
    let devices: [Row]
    let query: String
    let statuses: [Choice]
    let next: String?
    let imported: String?
    let importErrors: [ImportLine]
    let hasImportErrors: Bool
    let error: String?

    init(chrome: PageChrome, counts: DeviceCounts, devices: [StoredDevice], filter: DeviceFilter, next: String?,
         report: DeviceImportReport? = nil, error: String? = nil) {
        let words = chrome.words
        self.chrome = chrome
        active = words.number(counts.active)
        invalid = words.number(counts.invalid)
        stale = words.number(counts.stale)
        func list(_ pairs: [(String, Int)]) -> [Count] { pairs.map { Count(value: $0.0, devices: words.number($0.1)) } }
        platforms = list(counts.byPlatform)
        languages = list(counts.byLanguage)
        countries = list(counts.byCountry)
        appVersions = list(counts.byAppVersion)
        self.devices = devices.map { Row($0, words: words) }
        query = filter.search ?? ""
        statuses = [Choice("", text: words.text("devices.any_state"), selected: filter.status == nil)]
            + DeviceStatus.allCases.map { Choice($0.rawValue, text: words.text("devices.status.\($0.rawValue)"), selected: filter.status == $0) }
        self.next = next
        imported = report.map {
            words.text("devices.imported", words.number($0.rows), words.number($0.created), words.number($0.updated),
                           words.number($0.failedRows))
        }
        importErrors = report?.errors.prefix(50).map { ImportLine(line: words.number($0.line), field: $0.error.path, message: $0.error.message) } ?? []
        hasImportErrors = !importErrors.isEmpty
        self.error = error
    }
}

/// `/devices/{token}/topics`: the topics FCM lists for one device, with when each was made.
struct DeviceTopicsView: PageView {
    struct Row: Sendable {
        let topic: String
        let since: String
    }

    static let template = "device-topics"
    let chrome: PageChrome
    let token: String
    let isFID: Bool
    let topics: [Row]

    init(chrome: PageChrome, device: StoredDevice, topics: [DeviceTopic]) {
        self.chrome = chrome
        token = device.device.token
        isFID = device.device.kind == .fid
        // FCM's time may have any fraction of a second: read, then written as every page writes times.
        self.topics = topics.map { topic in
            let since = topic.createTime.map { time in RFC3339.secondsSince1970(time).map { chrome.words.shortTime(Date(timeIntervalSince1970: $0)) } ?? time }
            return Row(topic: topic.topic, since: since ?? "")
        }
    }
}

/// `/segments`: the saved segments with their reach now, and the editor for a new one.
struct SegmentsView: PageView {
    struct Row: Sendable {
        let id: String
        let name: String
        /// The reach as kept, in the page's digits.
        let devices: String
        let updatedAt: String
        /// "Spring sale, VIP week (+2 more)", or that no campaign sends to it.
        let usedBy: String
    }

    /// The campaigns sending to a segment, three by name and the rest counted.
    static func usedBy(_ names: [String], words: Localized) -> String {
        guard !names.isEmpty else { return words.text("segments.unused") }
        let shown = names.prefix(3).map(words.isolate).joined(separator: words.text("list.separator"))
        return names.count > 3 ? shown + words.text("segments.more", words.number(names.count - 3)) : shown
    }

    static let template = "segments"
    let chrome: PageChrome
    let segments: [Row]
    let editor: SegmentEditor
}

/// The segment editor (on `/segments` for a new one, on `/segments/{id}` for a saved one).
struct SegmentEditor: Sendable {
    struct Row: Sendable {
        let index: Int
        let fields: [Choice]
        let operators: [Choice]
        let name: String
        let value: String
        let errors: [String]
        /// A row testing another attribute than a property does not ask for a property name.
        let nameHidden: Bool
        /// The registry's own values of the row's attribute, offered as the value is typed.
        let valuesList: String?
        let group: Int
    }

    /// A group of rows, all-of or any-of; with several, the groups combine as `all` says.
    struct Group: Sendable {
        let index: Int
        let number: String
        let all: Bool
        let several: Bool
        let rows: [Row]
    }

    let action: String
    let id: String?
    let name: String
    let all: Bool
    let groups: [Group]
    let ruleJSON: String
    /// The JSON editor starts open only when it holds a rule (the template's section would take
    /// an empty string as true).
    let showsRuleJSON: Bool
    let nameErrors: [String]
    let ruleErrors: [String]
    /// The count asked for with "Count devices" (without saving), or the saved segment's (an
    /// estimate, said to be one, when counting took too long).
    let reach: LiveReach?
    let reachText: String?
    let canEdit: Bool

    /// Each attribute a row may test, with the key of its name.
    static let fieldChoices = [("language", "devices.language"), ("country", "devices.country"), ("platform", "devices.platform"),
                               ("app_version", "devices.app_version"), ("app_id", "segments.field.app_id"), ("time_zone", "segments.field.time_zone"),
                               ("property", "segments.field.property"), ("last_seen", "devices.last_seen")]
    static let operators = ["is", "is_not", "is_one_of", "is_not_one_of", "at_least", "exists", "within_days"]
    /// The attributes whose values the editor offers from the registry (`values`).
    static let valueLists = ["language", "country", "time_zone", "app_version", "platform"]

    /// The registry's values per attribute, for the value inputs' suggestions.
    struct Values: Sendable {
        let id: String
        let values: [String]
    }
    var values: [Values] = []

    init(form: SegmentForm, id: String?, errors: FormErrors, reach: LiveReach?, canEdit: Bool, words: Localized) {
        action = id.map { "/segments/\($0)" } ?? "/segments"
        self.id = id
        name = form.name
        all = form.combine == "all"
        let rows = form.rows.enumerated().map { index, row in
            Row(index: index,
                fields: [Choice("", text: "—", selected: row.field.isEmpty)]
                    + Self.fieldChoices.map { Choice($0.0, text: words.text($0.1), selected: $0.0 == row.field) },
                operators: Self.operators.map { Choice($0, text: words.text("segments.op.\($0)"), selected: $0 == row.op) },
                name: row.name, value: row.value, errors: errors["row_\(index)"], nameHidden: !row.field.isEmpty && row.field != "property",
                valuesList: Self.valueLists.contains(row.field) ? "segment-values-\(row.field)" : nil, group: row.group)
        }
        groups = form.groupCombines.enumerated().map { index, combine in
            Group(index: index, number: words.number(index + 1), all: combine == "all", several: form.groupCombines.count > 1,
                  rows: rows.filter { $0.group == index })
        }
        ruleJSON = form.ruleJSON
        showsRuleJSON = !form.ruleJSON.isEmpty || !errors["rule_json"].isEmpty
        nameErrors = errors["name"]
        ruleErrors = errors["rule_json"]
        self.reach = reach
        reachText = reach.map(words.reachText)
        self.canEdit = canEdit
    }
}

/// `/segments/{id}`: one segment, its reach, and the editor.
struct SegmentView: PageView {
    static let template = "segment"
    let chrome: PageChrome
    let editor: SegmentEditor
    let deleteQuestion: String
}
