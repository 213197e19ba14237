import HeraldJSON
import Testing
@testable import HeraldCore
@testable import HeraldWeb

/// The journey form without a server: a stored journey shown as fields and read back the same,
/// the list of steps changed by its buttons, each step's message under the step's own names,
/// and every problem the contract finds beside the field that caused it.
@Suite struct JourneyPagesFormTests {
    let words = Localized(language: .en)

    /// The fields a browser posts for `form`, as the page writes them.
    static func posted(_ form: JourneyForm) -> [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = [("version", String(form.version ?? 0)), ("name", form.name), ("entry_kind", form.entryKind),
                                                       ("entry_event", form.entryEvent), ("entry_segment", form.entrySegment), ("frequency", form.frequency),
                                                       ("days", form.days), ("goal_event", form.goalEvent), ("holdout_percent", form.holdoutPercent)]
        for row in form.steps {
            let names = JourneyStepFields(step: row.id)
            fields.append(("step", String(row.id)))
            for (key, value) in [("name", row.name), ("type", row.type), ("wait_kind", row.waitKind), ("minutes", row.minutes), ("until_time", row.untilTime),
                                 ("condition", row.condition), ("condition_event", row.conditionEvent), ("condition_segment", row.conditionSegment),
                                 ("next", row.next), ("then", row.then), ("else", row.otherwise), ("more", row.more),
                                 ("title", row.message.title), ("body", row.message.body), ("image_url", row.message.imageURL)] {
                fields.append((names.scoped(key), value))
            }
            for data in row.message.data {
                fields += [(names.scoped("data_key_\(data.id)"), data.key), (names.scoped("data_value_\(data.id)"), data.value)]
            }
            for variant in row.message.variants {
                fields += [(names.scoped("variant_key_\(variant.id)"), variant.key), (names.scoped("variant_weight_\(variant.id)"), variant.weight),
                           (names.scoped("variant_title_\(variant.id)"), variant.title), (names.scoped("variant_body_\(variant.id)"), variant.body)]
            }
        }
        return fields
    }

    @Test func aStepsFieldNamesCarryItsNumberAndComeBackToTheComposersNames() {
        let names = JourneyStepFields(step: 3)
        #expect(names.scoped("title") == "s3_title" && names.unscoped("s3_title") == "title")
        #expect(names.scoped("data_key_0") == "s3_data_key_0" && names.unscoped("s3_data_key_0") == "data_key_0")
        #expect(names.scoped("variant_key_1") == "variant_key_3v1" && names.unscoped("variant_key_3v1") == "variant_key_1")
        #expect(names.scoped("variant_1_data_value_2") == "variant_3v1_data_value_2" && names.unscoped("variant_3v1_data_value_2") == "variant_1_data_value_2")
        #expect(names.scoped("variant_image_file_4") == "variant_image_file_3v4")
        // Another step's fields are not this one's, whatever digits they share.
        #expect(names.unscoped("s13_title") == nil && names.unscoped("variant_key_13v1") == nil && names.unscoped("variant_key_3") == nil)
        #expect(JourneyStepFields(step: 1).unscoped("variant_key_13v1") == nil)
    }

    @Test func aStoredJourneyShownAsFieldsIsReadBackTheSame() throws {
        let definition = JourneyPageFixtures.definition()
        let form = JourneyForm(definition, version: 4)
        let posted = JourneyForm(fields: Self.posted(form))
        #expect(posted.version == 4)
        let read = try posted.parse(words: words).get()
        #expect(read == definition)
        #expect(read.toJSON().serializedString() == definition.toJSON().serializedString())
        // What the page does not edit in a message (options, delivery) goes round untouched.
        var rich = definition
        guard case .send(var spec, let next) = rich.steps[4].kind else { Issue.record("not a send"); return }
        spec.options.androidChannelID = "offers"
        rich.steps[4].kind = .send(spec, next: next)
        let again = try JourneyForm(fields: Self.posted(JourneyForm(rich, version: 1))).parse(words: words).get()
        #expect(again.toJSON().serializedString() == rich.toJSON().serializedString())
    }

    @Test func theButtonsAddMoveAndDeleteStepsAndVariantsWithoutSaving() {
        var form = JourneyForm(JourneyPageFixtures.definition(), version: 1)
        func apply(_ edit: JourneyForm.Edit) -> Bool { form.apply(edit, words: words) }
        #expect(JourneyForm.Edit(action: "add:start:wait") == .add(after: nil, type: "wait"))
        #expect(JourneyForm.Edit(action: "add:3:send") == .add(after: 3, type: "send"))
        #expect(JourneyForm.Edit(action: "remove_variant:1v0") == .message(step: 1, .removeVariant(0)))
        #expect(JourneyForm.Edit(action: "add_variant_data:1v1") == .message(step: 1, .addVariantData(1)))
        #expect(JourneyForm.Edit(action: "add:3:loop") == nil && JourneyForm.Edit(action: "up:x") == nil && JourneyForm.Edit(action: "save") == nil)

        #expect(apply(.add(after: 3, type: "wait")))
        #expect(form.steps.map(\.name) == ["settle", "welcome", "read?", "check", "step 7", "nudge", "done"])
        #expect(form.steps[4].type == "wait" && form.steps[4].id == 6)
        #expect(apply(.moveDown(6)))
        #expect(form.steps.map(\.name) == ["settle", "welcome", "read?", "check", "nudge", "step 7", "done"])
        #expect(apply(.moveUp(0)) == false)
        #expect(apply(.delete(6)))
        #expect(form.steps.map(\.name) == ["settle", "welcome", "read?", "check", "nudge", "done"])
        #expect(apply(.add(after: nil, type: "exit")))
        #expect(form.steps.first?.name == "step 7" && form.steps.first?.type == "exit")
        #expect(apply(.message(step: 1, .removeVariant(0))))
        #expect(form.steps[2].message.variants.map(\.key) == ["B"])
        #expect(apply(.delete(99)) == false)
    }

    @Test func everyProblemLandsBesideTheFieldThatCausedIt() {
        var form = JourneyForm(JourneyPageFixtures.definition(), version: 1)
        form.entryEvent = "signed up!"
        form.goalEvent = "signed up!"
        form.holdoutPercent = "ten"
        form.steps[0].minutes = "0"
        form.steps[1].message.variants[1].weight = "x"
        form.steps[1].message.title = String(repeating: "a", count: 2000)
        form.steps[3].then = "settle"
        form.steps[3].otherwise = ""
        form.steps[4].name = "check"
        guard case .failure(let errors) = form.parse(words: words) else { Issue.record("a broken journey parsed"); return }
        for field in ["entry_event", "goal_event", "holdout_percent", "s0_minutes", "variant_weight_1v1", "s3_then", "s3_else", "s4_name"] {
            #expect(!errors[field].isEmpty, "\(field): \(errors.order)")
        }
        #expect(errors["s3_then"].contains { $0.contains("not after this step") })
        // In Persian the same problems, in Persian.
        guard case .failure(let persian) = form.parse(words: Localized(language: .fa)) else { return }
        #expect(persian["s0_minutes"] != errors["s0_minutes"] && !persian["s0_minutes"].isEmpty)
        // A segment rule that is not JSON says where it breaks.
        var rule = JourneyForm(JourneyPageFixtures.definition(), version: 1)
        rule.entrySegment = "{\"all\": ["
        guard case .failure(let ruleErrors) = rule.parse(words: words) else { Issue.record("a broken rule parsed"); return }
        #expect(ruleErrors.order == ["entry_segment"])
    }
}
