import Foundation
import HeraldJSON
@testable import HeraldApp
@testable import HeraldCore
@testable import HeraldWeb

/// The welcome journey the journey pages are tested with, and typical journey views.
enum JourneyPageFixtures {
    /// Entry on `signed_up` → wait an hour → an A/B welcome → wait until opened or a day → if not
    /// opened a reminder → exit; goal `purchased`.
    static let welcome: JSON = [
        "name": "Welcome",
        "entry": ["event": "signed_up", "frequency": "once"],
        "goal": ["event": "purchased"],
        "steps": [
            ["name": "settle", "type": "wait", "minutes": 60],
            ["name": "welcome", "type": "send", "message": [
                "notification": ["title": "Welcome!", "body": "Glad you are here"],
                "variants": [["key": "A", "weight": 50, "notification": ["title": "Welcome!", "body": "Glad you are here"]],
                             ["key": "B", "weight": 50, "notification": ["title": "Hello there", "body": "Take a look around"]]],
            ]],
            ["name": "read?", "type": "wait", "until": ["opened": true], "minutes": 1440],
            ["name": "check", "type": "branch", "if": ["opened": true], "then": "done", "else": "nudge"],
            ["name": "nudge", "type": "send", "message": ["notification": ["title": "Still there?", "body": "Your first week is free"]]],
            ["name": "done", "type": "exit"],
        ],
    ]

    static func definition() -> JourneyDefinition {
        guard case .success(let definition) = JourneyDefinition.parse(welcome) else { preconditionFailure("the welcome journey does not parse") }
        return definition
    }

    static func record(status: JourneyStatus = .live) -> JourneyRecord {
        let definition = definition()
        return JourneyRecord(id: JourneyID("00000000-0000-4000-8000-0000000000d1")!, name: definition.name, status: status, draft: definition,
                             version: 3, publishedVersion: 2, createdBy: "ana@example.com", updatedBy: "ana@example.com",
                             createdAt: Date(timeIntervalSince1970: 1_795_824_000), updatedAt: Date(timeIntervalSince1970: 1_795_824_000))
    }

    static func report() -> JourneyReport {
        let steps = definition().steps.enumerated().map { index, step in
            JourneyReport.Step(version: 2, index: index, name: step.name, type: step.typeName, reached: 100 - index * 10, left: 90 - index * 10,
                               sent: step.typeName == "send" ? 80 : 0, skipped: 0, delivered: 0, failed: 0, capped: 0,
                               opened: step.typeName == "send" ? 30 : 0, converted: step.typeName == "send" ? 5 : 0)
        }
        return JourneyReport(journeyID: record().id, publishedVersion: 2, entered: 100, goal: 5, heldOut: 0, heldOutGoal: 0, completed: 40,
                             stopped: 0, gone: 0, steps: steps)
    }

    /// A list, and a journey page with a report, a conflict and an error beside a step's field.
    static func views(chrome: PageChrome) -> [any PageView] {
        let words = chrome.words
        let record = record()
        var form = JourneyForm(record.draft, version: record.version)
        form.steps[1].message.variants[0].data = [CampaignForm.DataRow(id: 0, key: "screen", value: "home")]
        var errors = FormErrors()
        for field in ["form", "name", "s0_minutes", "s1_title", "variant_key_1v0", "s3_then"] { errors.add(field, "is wrong") }
        let conflict = JourneyView.Conflict(summary: "Someone saved.", theirsHeading: "Theirs", changes: [ConflictView.Change(field: "name", theirs: "A", yours: "B")],
                                            hasChanges: true, theirs: "{}")
        var journey = JourneyView(chrome: chrome, form: form, errors: errors, record: record, report: report(), conflict: conflict, role: .admin)
        journey.savedSegments = [Choice("00000000-0000-4000-8000-0000000000e2", text: "Persian speakers")]
        return [
            JourneyListView(chrome: chrome, journeys: [JourneyListView.Row(id: record.id.description, name: record.name, status: "live",
                                                                           statusText: words.text("journeys.status.live"), version: "3", published: "2", entrants: "100")],
                            empty: false, next: "/journeys?cursor=x"),
            journey,
        ]
    }
}
