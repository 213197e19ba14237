import Foundation
import HeraldApp
import HeraldCore
import HeraldHTTP
import HeraldJSON

/// The journey pages: the list, and one page that builds a journey as a list of steps in plain
/// HTML forms (each change of the list a post that brings the same form back), shows it as a
/// diagram with its figures, and publishes, pauses, resumes and stops it. Every write goes through
/// `JourneyService` exactly as the REST API's does, with the same version check and approval rule.
struct JourneyPages: Sendable {
    let journeys: JourneyService
    let images: ImageService
    let segments: SegmentService
    let pages: PageRenderer

    static let pageSize = 20

    func list(_ context: RequestContext) throws -> HTTPResponse {
        let words = context.words
        let page = try journeys.list(limit: Self.pageSize, after: context.query("cursor").flatMap { JourneyID($0) })
        let rows = try page.journeys.map { record in
            let entrants = try record.publishedVersion.map { _ in try journeys.report(record.id) }.map { $0.entered + $0.heldOut } ?? 0
            return JourneyListView.Row(id: record.id.description, name: record.name, status: record.status.rawValue,
                                       statusText: words.text("journeys.status.\(record.status.rawValue)"), version: words.number(record.version),
                                       published: record.publishedVersion.map(words.number) ?? "—", entrants: words.number(entrants))
        }
        return pages.page(JourneyListView(chrome: chrome(context, title: words.text("nav.journeys")), journeys: rows, empty: rows.isEmpty,
                                          next: page.next.map { "/journeys?cursor=\($0)" }))
    }

    func new(_ context: RequestContext) throws -> HTTPResponse {
        var form = JourneyForm()
        form.apply(.add(after: nil, type: "exit"), words: context.words)
        return try editor(context, form: form, record: nil)
    }

    func show(_ context: RequestContext) throws -> HTTPResponse {
        let record = try journeys.get(try context.journeyID())
        return try editor(context, form: JourneyForm(record.draft, version: record.version), record: record)
    }

    /// Creates (`POST /journeys`) or saves the draft (`POST /journeys/{id}`), or applies a change
    /// to the list of steps and shows the form again.
    func save(_ context: RequestContext) throws -> HTTPResponse {
        let words = context.words
        let record = try context.request.parameters["id"].map { _ in try journeys.get(try context.journeyID()) }
        if let problem = context.formError {
            return pages.page(MessageView(context, heading: words.text("composer.unreadable"), text: problem), status: 400)
        }
        var form = JourneyForm(fields: context.form.fields)
        var errors = try uploadImages(context, into: &form)
        if context.form.value("action") == "use_segment" {
            // A saved segment's rule copied into the entry's, to keep or edit; nothing saved yet.
            if let id = SegmentID(context.form.value("copy_segment") ?? ""), let segment = try? segments.get(id) {
                form.entrySegment = segment.rule.toJSON().prettyString()
            } else {
                errors.add("entry_segment", words.text("journeys.error.no_segment"))
            }
            return try editor(context, form: form, record: record, errors: errors)
        }
        if let edit = JourneyForm.Edit(action: context.form.value("action") ?? "save") {
            if !form.apply(edit, words: words) { errors.add("steps", words.text("journeys.error.edit_refused")) }
            return try editor(context, form: form, record: record, errors: errors)
        }
        let definition: JourneyDefinition
        switch form.parse(words: words) {
        case .success(let parsed) where errors.isEmpty: definition = parsed
        case .success: return try editor(context, form: form, record: record, errors: errors, status: 422)
        case .failure(let found):
            errors.add(found)
            return try editor(context, form: form, record: record, errors: errors, status: 422)
        }
        let json = definition.toJSON()
        guard let record else {
            let created = try journeys.create(json, by: context.actor)
            return PageRenderer.redirect(to: "/journeys/\(created.id)?notice=saved")
        }
        do {
            _ = try journeys.update(record.id, json, expectedVersion: form.version ?? 0, by: context.actor)
            return PageRenderer.redirect(to: "/journeys/\(record.id)?notice=saved")
        } catch AppError.versionMismatch {
            let current = try journeys.get(record.id)
            let theirs = current.draft.toJSON()
            let conflict = JourneyView.Conflict(
                summary: words.text("composer.conflict.summary", current.updatedBy ?? words.text("composer.conflict.api_client"),
                                    words.number(current.version), words.shortTime(current.updatedAt), words.number(form.version ?? 0)),
                theirsHeading: words.text("composer.conflict.theirs", words.number(current.version)),
                changes: ConflictView.differences(theirs: theirs, yours: json, words: words), hasChanges: theirs != json, theirs: theirs.prettyString())
            // The editor's form stays as typed, now based on their version: saving again overwrites it.
            form.version = current.version
            return try editor(context, form: form, record: current, conflict: conflict, status: 409)
        } catch let error as AppError {
            guard case .conflict = error else { throw error }
            errors.add("form", words.message(error))
            return try editor(context, form: form, record: record, errors: errors, status: 409)
        }
    }

    /// Publishes the saved draft the page showed (its version), moving waiting devices when asked.
    func publish(_ context: RequestContext) throws -> HTTPResponse {
        let id = try context.journeyID()
        let version = Int(context.form.value("version") ?? "")
        return try act(context, id, notice: "published") {
            try journeys.publish(id, expectedVersion: version, moveDevices: context.form.value("move_devices") == "true", by: context.actor).journey
        }
    }

    func pause(_ context: RequestContext) throws -> HTTPResponse {
        let id = try context.journeyID()
        return try act(context, id, notice: "paused") { try journeys.pause(id, by: context.actor) }
    }

    func resume(_ context: RequestContext) throws -> HTTPResponse {
        let id = try context.journeyID()
        return try act(context, id, notice: "resumed") { try journeys.resume(id, by: context.actor) }
    }

    /// Stopping cannot be undone, so it is asked first.
    func stop(_ context: RequestContext) throws -> HTTPResponse {
        let words = context.words
        let id = try context.journeyID()
        if !ConfirmView.isConfirmed(context) {
            let record = try journeys.get(id)
            return ConfirmView.page(context, pages: pages, heading: words.text("journeys.stop.heading"),
                                    text: words.text("journeys.stop.question", words.isolate(record.name)),
                                    confirmLabel: words.text("journeys.stop"), back: "/journeys/\(id)")
        }
        return try act(context, id, notice: "stopped") { try journeys.stop(id, by: context.actor) }
    }

    /// Runs a state change and goes back to the journey with its notice; a refusal (a stale page,
    /// the approval rule, a state that does not allow it) is shown on the journey's page.
    func act(_ context: RequestContext, _ id: JourneyID, notice: String, _ change: () throws -> JourneyRecord) throws -> HTTPResponse {
        let words = context.words
        do {
            _ = try change()
            return PageRenderer.redirect(to: "/journeys/\(id)?notice=\(notice)")
        } catch let error as AppError {
            let refusal: String
            switch error {
            case .versionMismatch(let current, _): refusal = words.text("journeys.error.stale", words.number(current))
            case .conflict(code: "approval_required", _, _, _): refusal = words.text("journeys.error.second_publisher")
            case .conflict, .notAllowed: refusal = words.message(error)
            default: throw error
            }
            let record = try journeys.get(id)
            var errors = FormErrors()
            errors.add("form", refusal)
            return try editor(context, form: JourneyForm(record.draft, version: record.version), record: record, errors: errors,
                              status: ProblemRenderer.problem(for: error, words: words).status)
        }
    }

    // MARK: - Helpers

    /// Stores the images chosen for send steps and puts their URLs in the form (as the composer does).
    func uploadImages(_ context: RequestContext, into form: inout JourneyForm) throws -> FormErrors {
        var errors = FormErrors()
        for index in form.steps.indices where form.steps[index].type == "send" {
            let names = JourneyStepFields(step: form.steps[index].id)
            let upload = ImageUpload(context: context, images: images)
            if let url = try upload.store(names.scoped("image_file"), errorsAt: names.scoped("image_url"), errors: &errors) {
                form.steps[index].message.imageURL = url
            }
            for row in form.steps[index].message.variants.indices {
                let id = form.steps[index].message.variants[row].id
                if let url = try upload.store(names.scoped("variant_image_file_\(id)"), errorsAt: names.scoped("variant_image_\(id)"), errors: &errors) {
                    form.steps[index].message.variants[row].image = url
                }
            }
        }
        return errors
    }

    func editor(_ context: RequestContext, form: JourneyForm, record: JourneyRecord?, errors: FormErrors = FormErrors(),
                conflict: JourneyView.Conflict? = nil, status: Int = 200) throws -> HTTPResponse {
        let words = context.words
        let report = try record.flatMap { $0.publishedVersion == nil ? nil : try journeys.report($0.id) }
        let title = record.map { words.text("journeys.edit_title", $0.name) } ?? words.text("journeys.new")
        var view = JourneyView(chrome: chrome(context, title: title), form: form, errors: errors, record: record, report: report,
                               conflict: conflict, role: context.viewer?.role)
        view.savedSegments = try segments.list().map { Choice($0.id.description, text: $0.name) }
        return pages.page(view, status: status)
    }

    /// The layout's part, with the notice a redirect asked for (chosen by a word, never shown from the URL).
    func chrome(_ context: RequestContext, title: String) -> PageChrome {
        let notice = context.query("notice").flatMap { ["saved", "published", "paused", "resumed", "stopped"].contains($0) ? $0 : nil }
        return PageChrome(context, title: title, flash: notice.map { [context.words.text("journeys.notice.\($0)")] } ?? [])
    }
}
