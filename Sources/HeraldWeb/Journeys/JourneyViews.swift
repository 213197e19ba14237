import Foundation
import HeraldApp
import HeraldCore
import HeraldJSON

/// `/journeys`: every journey with its status, version and entrants.
struct JourneyListView: PageView {
    struct Row: Sendable {
        let id: String
        let name: String
        let status: String
        let statusText: String
        let version: String
        let published: String
        let entrants: String
    }

    static let template = "journeys"
    let chrome: PageChrome
    let journeys: [Row]
    let empty: Bool
    let next: String?
}

/// The journey page: the form as typed with its errors beside each field, the diagram, the
/// figures, and the publish, pause, resume and stop forms the viewer's role allows.
struct JourneyView: PageView {
    static let template = "journey"
    let chrome: PageChrome
    /// Where the form posts: `/journeys` for a new one, `/journeys/{id}` after.
    let action: String
    let journeyID: String?
    let isNew: Bool
    /// The stored journey's name and draft version (the form's may differ while it is edited).
    let savedName: String
    let savedVersion: String
    let stopQuestion: String
    let status: String?
    let statusText: String?
    let version: String
    let publishedVersion: String?
    let name: String
    let entryEvent: Bool
    let entryJoins: Bool
    let entryDate: Bool
    let entryEventName: String
    let entryDateProperty: String
    let entryDateOffset: String
    let entryDateAt: String
    let entrySegment: String
    let frequencies: [Choice]
    let days: String
    let goalEvent: String
    let holdoutPercent: String
    /// The saved segments whose rule the entry's may be copied from.
    var savedSegments: [Choice] = [] { didSet { hasSavedSegments = !savedSegments.isEmpty } }
    /// Stored, not computed: templates read a view's stored properties only.
    private(set) var hasSavedSegments = false
    let steps: [StepView]
    let hasSteps: Bool
    let stepTypes: [Choice]
    let errors: [String: [String]]
    let hasErrors: Bool
    let errorHeading: String
    let errorSummary: [ComposerView.ErrorLine]
    /// After a lost race with another editor: what they saved against what this editor typed.
    let conflict: Conflict?
    /// Inline SVG built by `JourneyDiagram` (escaped there), nil for a journey without steps.
    let diagram: String?
    let figures: [Figure]
    let hasFigures: Bool
    let canEdit: Bool
    let canPublish: Bool
    let canPause: Bool
    let canResume: Bool
    let canStop: Bool
    let moveDevices: Bool

    struct Figure: Sendable {
        let label: String
        let value: String
    }

    struct Conflict: Sendable {
        let summary: String
        let theirsHeading: String
        let changes: [ConflictView.Change]
        let hasChanges: Bool
        let theirs: String
    }

    init(chrome: PageChrome, form: JourneyForm, errors: FormErrors, record: JourneyRecord?, report: JourneyReport?,
         conflict: Conflict? = nil, role: Role?) {
        let words = chrome.words
        self.chrome = chrome
        journeyID = record?.id.description
        action = record.map { "/journeys/\($0.id)" } ?? "/journeys"
        isNew = record == nil
        savedName = record?.name ?? ""
        savedVersion = record.map { String($0.version) } ?? ""
        stopQuestion = record.map { words.text("journeys.stop.question", words.isolate($0.name)) } ?? ""
        status = record?.status.rawValue
        statusText = record.map { words.text("journeys.status.\($0.status.rawValue)") }
        version = String(form.version ?? 0)
        publishedVersion = record?.publishedVersion.map(words.number)
        name = form.name
        entryEvent = form.entryKind == "event"
        entryJoins = form.entryKind == "joins"
        entryDate = form.entryKind == "date"
        entryEventName = form.entryEvent
        entryDateProperty = form.entryDateProperty
        entryDateOffset = form.entryDateOffset
        entryDateAt = form.entryDateAt
        entrySegment = form.entrySegment
        frequencies = JourneyForm.frequencies.map { Choice($0, text: words.text("journeys.frequency.\($0)"), selected: form.frequency == $0) }
        days = form.days
        goalEvent = form.goalEvent
        holdoutPercent = form.holdoutPercent
        steps = form.steps.indices.map { StepView(form: form, position: $0, errors: errors, words: words) }
        hasSteps = !form.steps.isEmpty
        stepTypes = JourneyForm.stepTypes.map { Choice($0, text: words.text("journeys.type.\($0)")) }
        var byField: [String: [String]] = [:]
        for field in ["form"] + Self.ownFields {
            byField[field] = errors[field]
        }
        self.errors = byField
        hasErrors = !errors.isEmpty
        errorHeading = words.text(errors.order.count > 1 ? "journeys.errors.heading_many" : "journeys.errors.heading_one")
        errorSummary = errors.order.flatMap { field in
            errors[field].map { ComposerView.ErrorLine(field: field, label: Self.label(field, form: form, words: words), message: $0) }
        }
        self.conflict = conflict
        let shown = record?.draft
        diagram = shown.flatMap { $0.steps.isEmpty ? nil : JourneyDiagram.svg($0, figures: report.map(JourneyDiagram.figures), words: words) }
        figures = report.map { report in
            [("journeys.report.entered", report.entered), ("journeys.report.in_journey", report.inJourney), ("journeys.report.goal", report.goal),
             ("journeys.report.completed", report.completed), ("journeys.report.held_out", report.heldOut)]
                .map { Figure(label: words.text($0.0), value: words.number($0.1)) }
        } ?? []
        hasFigures = !figures.isEmpty
        let role = role ?? .viewer
        let state = record?.status
        canEdit = role >= .editor && state != .stopped
        canPublish = role >= .publisher && record != nil && state != .stopped
        canPause = role >= .publisher && state == .live
        canResume = role >= .publisher && state == .paused
        canStop = role >= .publisher && record != nil && state != .stopped
        moveDevices = record?.publishedVersion != nil
    }

    /// A person's name for a field, for the error summary: the journey's own, or the step's number and name.
    /// The journey's own fields (not a step's), each with a label `journeys.field.<name>`.
    static let ownFields = ["name", "entry_event", "entry_date_property", "entry_date_offset", "entry_date_at", "entry_segment", "frequency", "days",
                            "goal_event", "holdout_percent", "steps"]

    static func label(_ field: String, form: JourneyForm, words: Localized) -> String {
        if Self.ownFields.contains(field) {
            return words.text("journeys.field.\(field)")
        }
        for (position, row) in form.steps.enumerated() where JourneyStepFields(step: row.id).unscoped(field) != nil {
            return words.text("journeys.field.step", words.number(position + 1), row.name)
        }
        return words.text("field.form")
    }
}

/// One step of the form: its name and type, the fields of its type, its targets chosen among
/// the later steps by name, and its buttons.
struct StepView: Sendable {
    let id: String
    let number: String
    let prefix: String
    let name: String
    let type: String
    let types: [Choice]
    let typeText: String
    let isSend: Bool
    let isWait: Bool
    let isBranch: Bool
    let isExit: Bool
    let waitKinds: [Choice]
    let minutes: String
    let untilTime: String
    let conditions: [Choice]
    let conditionEvent: String
    let conditionSegment: String
    /// A send's or wait's next step (blank: the next in the list).
    let nextTargets: [Choice]
    let thenTargets: [Choice]
    let elseTargets: [Choice]
    let canMoveUp: Bool
    let canMoveDown: Bool
    /// The errors beside each of the step's own fields, by unscoped name.
    let errors: [String: [String]]
    let invalid: Bool
    let message: Message?

    /// A send step's message: the composer's fields, rows and preview under the step's names.
    struct Message: Sendable {
        let title: String
        let body: String
        let imageURL: String
        let translations: String
        let translationsOpen: Bool
        let more: String
        let data: [ComposerFields.DataRow]
        let dataPrefix: String
        let variants: [ComposerFields.VariantRow]
        let variantsOpen: Bool
        let canAddVariant: Bool
        let preview: NotificationPreview
        let multilineTitle: Bool
    }

    init(form: JourneyForm, position: Int, errors all: FormErrors, words: Localized) {
        let row = form.steps[position]
        let names = JourneyStepFields(step: row.id)
        var local = FormErrors()
        for field in all.order { if let own = names.unscoped(field) { for text in all[field] { local.add(own, text) } } }
        id = String(row.id)
        number = words.number(position + 1)
        prefix = names.prefix
        name = row.name
        type = row.type
        types = JourneyForm.stepTypes.map { Choice($0, text: words.text("journeys.type.\($0)"), selected: row.type == $0) }
        typeText = words.text("journeys.type.\(row.type)")
        isSend = row.type == "send"
        isWait = row.type == "wait"
        isBranch = row.type == "branch"
        isExit = row.type == "exit"
        waitKinds = ["minutes", "until", "until_time"].map { Choice($0, text: words.text("journeys.wait_kind.\($0)"), selected: row.waitKind == $0) }
        minutes = row.minutes
        untilTime = row.untilTime
        conditions = (row.type == "branch" ? ["opened", "converted", "event", "segment"] : ["opened", "converted", "event"]).map {
            Choice($0, text: words.text("journeys.condition.\($0)"), selected: row.condition == $0)
        }
        conditionEvent = row.conditionEvent
        conditionSegment = row.conditionSegment
        let later = form.steps[(position + 1)...].map(\.name).filter { !$0.isEmpty }
        // A target that is not a later step (moved above, renamed) stays chosen, so that saving
        // says what is wrong with it instead of silently choosing another.
        func targets(_ chosen: String, blank: String) -> [Choice] {
            [Choice("", text: words.text(blank), selected: chosen.isEmpty)]
                + (later.contains(chosen) || chosen.isEmpty ? [] : [Choice(chosen, selected: true)])
                + later.map { Choice($0, selected: $0 == chosen) }
        }
        nextTargets = targets(row.next, blank: "journeys.target.next_in_list")
        thenTargets = targets(row.then, blank: "journeys.target.choose")
        elseTargets = targets(row.otherwise, blank: "journeys.target.choose")
        canMoveUp = position > 0
        canMoveDown = position + 1 < form.steps.count
        var own: [String: [String]] = [:]
        for field in ["name", "type", "minutes", "until_time", "condition", "condition_event", "condition_segment", "next", "then", "else",
                      "title", "body", "image_url", "translations", "data", "variants", "more", "form"] {
            own[field] = local[field]
        }
        errors = own
        invalid = !local.isEmpty
        guard row.type == "send" else { message = nil; return }
        var form = row.message
        if !form.data.contains(where: \.isBlank) { form.data.append(CampaignForm.DataRow(id: (form.data.map(\.id).max() ?? -1) + 1)) }
        let variants = form.variants.enumerated().map { number, variant in
            ComposerFields.VariantRow(number: number + 1, variant, local, index: names.variantIndex(variant.id), inheriting: (form.title, form.body), words: words)
        }
        message = Message(
            title: form.title, body: form.body, imageURL: form.imageURL, translations: form.translations,
            translationsOpen: !form.translations.isEmpty || !local["translations"].isEmpty, more: row.more,
            data: form.data.enumerated().map { ComposerFields.DataRow(prefix: names.prefix + "data", index: String($1.id), number: $0 + 1, key: $1.key, value: $1.value, words: words) },
            dataPrefix: names.prefix + "data", variants: variants,
            variantsOpen: !form.variants.isEmpty || local.order.contains { $0.hasPrefix("variant") },
            canAddVariant: form.variants.count < CampaignLimits.variants,
            preview: NotificationPreview(title: form.title, body: form.body, imageURL: form.imageURL, color: "", icon: "", words: words),
            multilineTitle: form.title.contains("\n"))
    }
}
