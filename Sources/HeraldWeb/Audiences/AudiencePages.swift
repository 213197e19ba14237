import HeraldApp
import HeraldCore
import HeraldHTTP
import HeraldJSON

/// The devices and segments pages: plain HTML forms, each with the session's CSRF token.
struct AudiencePages: Sendable {
    let devices: DeviceService
    let segments: SegmentService
    let pages: PageRenderer

    static let pageSize = 50

    // MARK: - Devices

    func devicesPage(_ context: RequestContext) throws -> HTTPResponse {
        try renderDevices(context)
    }

    func renderDevices(_ context: RequestContext, report: DeviceImportReport? = nil, error: String? = nil, status: Int = 200) throws -> HTTPResponse {
        let words = context.words
        var filter = DeviceFilter()
        filter.status = context.query("status").flatMap(DeviceStatus.init(rawValue:))
        // Text with NUL matches no device (PostgreSQL text cannot hold it), so it counts as no filter.
        filter.search = context.query("q").flatMap { $0.isEmpty || $0.contains("\0") ? nil : $0 }
        let after = context.query("after").flatMap { $0.isEmpty || $0.contains("\0") ? nil : $0 }
        let list = try devices.list(filter, after: after, limit: Self.pageSize)
        let next = list.count == Self.pageSize ? list.last?.device.token : nil
        let view = DevicesView(chrome: PageChrome(context, title: words.text("devices.title")), counts: try devices.counts(), devices: list, filter: filter,
                               next: next, report: report, error: error)
        return pages.page(view, status: status)
    }

    /// One device's topics, as FCM lists them (a viewer may read them; 404 for an unknown device).
    func deviceTopicsPage(_ context: RequestContext) throws -> HTTPResponse {
        let token = context.parameter("token")
        let device = try devices.get(token)
        let topics = try devices.topics(of: token)
        return pages.page(DeviceTopicsView(chrome: PageChrome(context, title: context.words.text("device_topics.title")), device: device, topics: topics))
    }

    /// A file imported from the page as the API imports it: sent by the page's script as the
    /// body itself, read as it arrives (any size up to `HERALD_MAX_IMPORT_BYTES`), or without
    /// script as a form's file (up to the body limit).
    func importDevices(_ context: RequestContext) throws -> HTTPResponse {
        let words = context.words
        let format: DeviceImportFormat
        let parts: () throws -> [UInt8]?
        if context.request.bodyStream != nil {
            guard let streamed = DevicesAPI.importFormat(context.request.mediaType) else {
                return try renderDevices(context, error: words.text("devices.choose_file"), status: 415)
            }
            (format, parts) = (streamed, context.bodyParts())
        } else {
            guard let file = context.form.file("file"), !file.body.isEmpty else {
                return try renderDevices(context, error: words.text("devices.choose_file"), status: 422)
            }
            var body: [UInt8]? = file.body
            format = (file.filename ?? "").lowercased().hasSuffix(".ndjson") ? .ndjson : .csv
            parts = { defer { body = nil }; return body }
        }
        do {
            let report = try devices.importDevices(format: format, parts)
            return try renderDevices(context, report: report)
        } catch let error as AppError {
            return try renderDevices(context, error: error.message, status: 422)
        } catch let interrupted as DeviceImportInterrupted {
            let (status, detail) = DevicesAPI.stopped(interrupted, words: words)
            return try renderDevices(context, error: detail, status: status)
        }
    }

    // MARK: - Segments

    func segmentsPage(_ context: RequestContext) throws -> HTTPResponse {
        try renderSegments(context, form: SegmentForm(), errors: FormErrors(), reach: nil)
    }

    func renderSegments(_ context: RequestContext, form: SegmentForm, errors: FormErrors, reach: LiveReach?, status: Int = 200) throws -> HTTPResponse {
        let words = context.words
        let usage = try segments.campaignsUsing()
        let rows = try segments.listWithKeptReach().map { segment, devices, _ in
            SegmentsView.Row(id: segment.id.description, name: segment.name, devices: words.number(devices), updatedAt: words.shortTime(segment.updatedAt),
                             usedBy: SegmentsView.usedBy(usage[segment.id] ?? [], words: words))
        }
        let canEdit = (context.viewer?.role ?? .viewer) >= .editor
        let view = SegmentsView(chrome: PageChrome(context, title: words.text("segments.title")), segments: rows,
                                editor: try editor(form: form, id: nil, errors: errors, reach: reach, canEdit: canEdit, words: words))
        return pages.page(view, status: status)
    }

    func segmentPage(_ context: RequestContext) throws -> HTTPResponse {
        let words = context.words
        let segment = try segments.get(try context.segmentID())
        // A new segment lands here after its save (`?notice=saved`), and says it was saved.
        let saved = context.query("notice") == "saved" ? [words.text("segments.saved")] : []
        return try renderSegment(context, segment: segment, form: SegmentForm(segment: segment), errors: FormErrors(),
                                 reach: try segments.liveReach(segment.rule), flash: saved)
    }

    func renderSegment(_ context: RequestContext, segment: Segment, form: SegmentForm, errors: FormErrors, reach: LiveReach?, status: Int = 200,
                       flash: [String] = []) throws -> HTTPResponse {
        let words = context.words
        let canEdit = (context.viewer?.role ?? .viewer) >= .editor
        let view = SegmentView(chrome: PageChrome(context, title: words.text("segments.page_title", words.isolate(segment.name)), flash: flash),
                               editor: try editor(form: form, id: segment.id.description, errors: errors, reach: reach, canEdit: canEdit, words: words),
                               deleteQuestion: words.text("segments.delete_question", words.isolate(segment.name)))
        return pages.page(view, status: status)
    }

    /// The editor with the registry's own values to suggest for each attribute.
    func editor(form: SegmentForm, id: String?, errors: FormErrors, reach: LiveReach?, canEdit: Bool, words: Localized) throws -> SegmentEditor {
        var editor = SegmentEditor(form: form, id: id, errors: errors, reach: reach, canEdit: canEdit, words: words)
        editor.values = try devices.commonValues(limit: 50).sorted { $0.key < $1.key }.map { SegmentEditor.Values(id: "segment-values-\($0.key)", values: $0.value) }
        return editor
    }

    /// Saves a new segment, or (the "Count devices" button) only counts what the rule reaches.
    func createSegment(_ context: RequestContext) throws -> HTTPResponse {
        var form = SegmentForm(fields: context.form.fields)
        if form.apply(action: context.form.value("action") ?? "") {
            return try renderSegments(context, form: form, errors: FormErrors(), reach: nil)
        }
        let (json, rowOf) = form.contractJSON()
        let counting = context.form.value("action") == "count"
        switch SegmentService.parse(json) {
        case .failure(let failure):
            return try renderSegments(context, form: form, errors: Self.errors(failure, form: form, rowOf: rowOf), reach: nil, status: 422)
        case .success(let parsed) where counting:
            return try renderSegments(context, form: form, errors: FormErrors(), reach: try segments.liveReach(parsed.rule))
        case .success:
            do {
                let segment = try segments.create(json, by: context.actor)
                return PageRenderer.redirect(to: "/segments/\(segment.id)?notice=saved")
            } catch AppError.conflict(_, _, let detail, _) {
                var errors = FormErrors()
                errors.add("name", detail)
                return try renderSegments(context, form: form, errors: errors, reach: nil, status: 409)
            }
        }
    }

    func updateSegment(_ context: RequestContext) throws -> HTTPResponse {
        let words = context.words
        let segment = try segments.get(try context.segmentID())
        var form = SegmentForm(fields: context.form.fields)
        if form.apply(action: context.form.value("action") ?? "") {
            return try renderSegment(context, segment: segment, form: form, errors: FormErrors(), reach: nil)
        }
        let (json, rowOf) = form.contractJSON()
        switch SegmentService.parse(json) {
        case .failure(let failure):
            return try renderSegment(context, segment: segment, form: form, errors: Self.errors(failure, form: form, rowOf: rowOf), reach: nil, status: 422)
        case .success(let parsed) where context.form.value("action") == "count":
            return try renderSegment(context, segment: segment, form: form, errors: FormErrors(), reach: try segments.liveReach(parsed.rule))
        case .success:
            do {
                let saved = try segments.update(segment.id, json, by: context.actor)
                return try renderSegment(context, segment: saved, form: SegmentForm(segment: saved), errors: FormErrors(),
                                         reach: LiveReach(devices: try segments.keptReach(saved).devices), flash: [words.text("segments.saved")])
            } catch AppError.conflict(_, _, let detail, _) {
                var errors = FormErrors()
                errors.add("name", detail)
                return try renderSegment(context, segment: segment, form: form, errors: errors, reach: nil, status: 409)
            }
        }
    }

    func deleteSegment(_ context: RequestContext) throws -> HTTPResponse {
        let words = context.words
        let segment = try segments.get(try context.segmentID())
        if let page = ConfirmView.unlessConfirmed(context, pages: pages, heading: words.text("segments.delete_heading"),
                                                  text: words.text("segments.delete_question", words.isolate(segment.name)),
                                                  confirmLabel: words.text("segments.delete"), back: "/segments/\(segment.id)") {
            return page
        }
        do {
            try segments.delete(segment.id, by: context.actor)
            return PageRenderer.redirect(to: "/segments")
        } catch AppError.conflict(_, _, let detail, _) {
            return try renderSegment(context, segment: segment, form: SegmentForm(segment: segment), errors: FormErrors(),
                                     reach: try segments.liveReach(segment.rule), status: 409, flash: [detail])
        }
    }

    /// `POST /segments/reach`: the editor's live count as the rule is edited (its script posts the
    /// form as it stands): the devices it reaches and the sentence to show, or the first problem.
    func liveReach(_ context: RequestContext) throws -> HTTPResponse {
        let words = context.words
        let form = SegmentForm(fields: context.form.fields)
        var (json, _) = form.contractJSON()
        if case .object(var object) = json { object["name"] = "reach"; json = .object(object) }  // the name is not counted
        switch SegmentService.parse(json) {
        case .failure(let failure):
            return APIResponse(status: 200, body: ["devices": .null, "text": .string(failure.errors.first.map(words.fieldError) ?? "")]).httpResponse
        case .success(let parsed):
            let reach = try segments.liveReach(parsed.rule)
            return APIResponse(status: 200, body: ["devices": .number(Double(reach.devices)), "estimate": .bool(reach.isEstimate),
                                                   "text": .string(words.reachText(reach))]).httpResponse
        }
    }

    static func errors(_ failure: ValidationErrors, form: SegmentForm, rowOf: [String: Int]) -> FormErrors {
        var errors = FormErrors()
        for error in failure.errors { errors.add(form.field(for: error.path, rowOfPath: rowOf), error.message) }
        return errors
    }
}
