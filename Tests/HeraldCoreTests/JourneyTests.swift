import Foundation
import HeraldCore
import HeraldJSON
import Testing

/// The welcome journey of the issue: wait an hour, an A/B welcome, wait until opened or a day,
/// a reminder to those who did not open, out on a purchase.
let welcomeJourney: JSON = [
    "name": "Welcome",
    "entry": ["event": "signed_up"],
    "goal": ["event": "purchased"],
    "holdout_percent": 10,
    "steps": [
        ["name": "settle", "type": "wait", "minutes": 60],
        ["name": "welcome", "type": "send", "message": [
            "notification": ["title": "Welcome, {{first_name | default: \"friend\"}}"],
            "variants": [["key": "A", "weight": 1, "notification": ["body": "Take the tour"]],
                         ["key": "B", "weight": 1, "notification": ["body": "10% off your first order"]]],
        ]],
        ["name": "read it?", "type": "wait", "until": ["opened": true], "minutes": 1440],
        ["name": "opened?", "type": "branch", "if": ["opened": true], "then": "done", "else": "reminder"],
        ["name": "reminder", "type": "send", "message": ["notification": ["title": "Still there?", "body": "Your tour is waiting"]]],
        ["name": "done", "type": "exit"],
    ],
]

@Suite struct JourneyDefinitionTests {
    func definition(_ json: JSON) throws -> JourneyDefinition {
        switch JourneyDefinition.parse(json) {
        case .success(let definition): return definition
        case .failure(let errors): Issue.record("unexpected errors: \(errors)"); throw errors
        }
    }

    func errors(_ json: JSON) -> [FieldError] {
        if case .failure(let errors) = JourneyDefinition.parse(json) { return errors.errors }
        Issue.record("expected errors")
        return []
    }

    @Test func theWelcomeJourneyReadsAndWritesBackUnchanged() throws {
        let journey = try definition(welcomeJourney)
        #expect(journey.steps.map(\.typeName) == ["wait", "send", "wait", "branch", "send", "exit"])
        #expect(journey.entry == JourneyEntry(event: "signed_up", frequency: .once))
        #expect(journey.goalEvent == "purchased")
        #expect(journey.holdoutPercent == 10)
        #expect(journey.firstRest == 60)
        guard case .send(let spec, nil) = journey.steps[1].kind else { Issue.record("not a send"); return }
        #expect(spec.variants.map(\.key) == ["A", "B"])
        let written = journey.toJSON()
        #expect(try definition(written) == journey)
        #expect(written["steps"]?.arrayValue?[1]["message"]?.objectValue?.keys.sorted() == ["notification", "variants"])
        #expect(written["entry"] == ["event": "signed_up", "frequency": "once"])
    }

    @Test func everyProblemIsNamedWithItsPath() {
        var broken = welcomeJourney.objectValue ?? [:]
        broken["entry"] = ["event": "signed up!", "frequency": "once_per_days"]
        broken["holdout_percent"] = 100
        broken["steps"] = [
            ["name": "a", "type": "wait"],
            ["name": "b", "type": "branch", "if": ["opened": true], "then": "a", "else": "nowhere"],
            ["name": "b", "type": "send", "message": ["notification": ["title": "Hi {{first_name}}"], "tokens": ["x"]]],
            ["name": "c", "type": "wait", "until": ["segment": ["field": "country", "op": "equals", "value": "IR"]], "minutes": 5],
            ["name": "d", "type": "jump"],
        ]
        let found = Set(errors(.object(broken)).map { "\($0.path) \($0.code)" })
        for expected in ["entry.event invalid_value", "entry.days required", "holdout_percent out_of_range", "steps[0] required",
                         "steps[1].if.opened no_message", "steps[1].then backward_step", "steps[1].else unknown_step",
                         "steps[2].name duplicate", "steps[2].message.tokens unknown_field", "steps[3].until.segment not_for_waits",
                         "steps[4].type invalid_value"] {
            #expect(found.contains(expected), "\(expected) in \(found.sorted())")
        }
        // A variable without a default is the campaign's own rule, at the step's path.
        #expect(found.contains { $0.hasPrefix("steps[2].message.notification.title") }, "\(found.sorted())")
    }

    @Test func aSendStepsTestCallsItsWinnerWithoutAHoldoutAndNeedsTwoVariants() throws {
        var journey = welcomeJourney.objectValue ?? [:]
        var steps = journey["steps"]?.arrayValue ?? []
        var welcome = steps[1].objectValue ?? [:]
        var message = welcome["message"]?.objectValue ?? [:]
        message["auto_winner"] = ["after_minutes": 120, "metric": "conversions", "confidence": 99, "fallback": "none"]
        welcome["message"] = .object(message)
        steps[1] = .object(welcome)
        journey["steps"] = .array(steps)
        let tested = try definition(.object(journey))
        guard case .send(let spec, _) = tested.steps[1].kind else { Issue.record("not a send"); return }
        #expect(spec.autoWinner == WinnerRule(afterMinutes: 120, metric: .conversions, confidence: 99, fallback: WinnerRule.Fallback.none))
        #expect(try definition(tested.toJSON()) == tested)
        #expect(tested.toJSON()["steps"]?.arrayValue?[1]["message"]?["auto_winner"]?["after_minutes"] == 120)
        // One variant has nothing to test; a holdout is a campaign's (a step's test holds no one out).
        message["variants"] = nil
        welcome["message"] = .object(message)
        steps[1] = .object(welcome)
        journey["steps"] = .array(steps)
        #expect(errors(.object(journey)).map { "\($0.path) \($0.code)" }.contains("steps[1].message.auto_winner needs_ab_test"))
        message["holdout_percent"] = 10
        welcome["message"] = .object(message)
        steps[1] = .object(welcome)
        journey["steps"] = .array(steps)
        #expect(errors(.object(journey)).map { "\($0.path) \($0.code)" }.contains("steps[1].message.holdout_percent unknown_field"))
    }

    @Test func anEntryCanBeADatePropertyComingDue() throws {
        var journey = welcomeJourney.objectValue ?? [:]
        journey["entry"] = ["date": ["property": "renewal_date", "offset_days": -3, "at": "10:00"], "frequency": "once_per_days", "days": 300]
        let dated = try definition(.object(journey))
        #expect(dated.entry.date == JourneyDateEntry(property: "renewal_date", offsetDays: -3, at: LocalTime(hour: 10, minute: 0)!))
        #expect(dated.entry.event == nil && !dated.entry.isJoining && dated.entry.frequency == .oncePerDays(300))
        #expect(try definition(dated.toJSON()) == dated)
        #expect(dated.toJSON()["entry"]?["date"] == ["property": "renewal_date", "offset_days": -3, "at": "10:00"])
        journey["entry"] = ["date": ["property": "renewal date", "offset_days": 4000, "at": "25:00"]]
        #expect(Set(errors(.object(journey)).map { "\($0.path) \($0.code)" })
                == ["entry.date.property invalid_value", "entry.date.offset_days out_of_range", "entry.date.at invalid_value"])
        journey["entry"] = ["date": ["property": "renewal_date"], "event": "signed_up"]
        #expect(errors(.object(journey)).map { "\($0.path) \($0.code)" } == ["entry conflict"])
        journey["entry"] = ["date": ["offset_days": 1]]
        #expect(Set(errors(.object(journey)).map { "\($0.path) \($0.code)" }) == ["entry.date.property required", "entry.date.at required"])
    }

    @Test func anEntryIsAnEventOrJoiningASegment() throws {
        var journey = welcomeJourney.objectValue ?? [:]
        journey["entry"] = ["joins": ["all": [["property": "plan", "equals": "pro"]]], "frequency": "every_time"]
        let joining = try definition(.object(journey))
        guard case .joins = joining.entry.trigger else { Issue.record("not a segment entry"); return }
        #expect(joining.entry.event == nil && joining.entry.frequency == .everyTime)
        #expect(try definition(joining.toJSON()) == joining)
        journey["entry"] = ["joins": ["all": [["property": "plan", "equals": "pro"]]], "event": "signed_up"]
        #expect(errors(.object(journey)).map { "\($0.path) \($0.code)" } == ["entry conflict"])
        journey["entry"] = ["frequency": "once"]
        #expect(errors(.object(journey)).map { "\($0.path) \($0.code)" } == ["entry.event required"])
    }

    @Test func aWaitIsADurationATimeOfDayOrSomethingWithATimeout() {
        func wait(_ members: JSON) -> [String] {
            var journey = welcomeJourney.objectValue ?? [:]
            var step: JSONObject = ["name": "w", "type": "wait"]
            for (key, value) in members.objectValue ?? [:] { step[key] = value }
            journey["steps"] = [.object(step)]
            if case .failure(let errors) = JourneyDefinition.parse(.object(journey)) { return errors.errors.map { "\($0.path) \($0.code)" } }
            return []
        }
        #expect(wait(["minutes": 30]) == [])
        #expect(wait(["until_time": "10:00"]) == [])
        #expect(wait(["until": ["event": "opened_cart"], "minutes": 60]) == [])
        #expect(wait(["until": ["event": "opened_cart"]]) == ["steps[0].minutes required"])
        #expect(wait(["until_time": "25:00"]) == ["steps[0].until_time invalid_value"])
        #expect(wait(["until_time": "10:00", "minutes": 5]) == ["steps[0].until_time conflict"])
        #expect(wait(["minutes": 0]) == ["steps[0].minutes out_of_range"])
    }
}

@Suite struct JourneyMachineTests {
    let journey: JourneyDefinition = { if case .success(let d) = JourneyDefinition.parse(welcomeJourney) { d } else { fatalError() } }()
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    func advance(_ place: JourneyPlace, at minutes: Double, _ facts: JourneyFacts = JourneyFacts()) -> JourneyMachine.Advance {
        JourneyMachine.advance(journey, from: place, facts: facts, now: start.addingTimeInterval(minutes * 60))
    }

    @Test func anEntrantWaitsAnHourThenIsSentTheWelcomeAndWaitsADayForItsOpen() {
        let entered = JourneyPlace(step: 0, since: start)
        let first = advance(entered, at: 0)
        #expect(first.sends == [])
        #expect(first.end == .waiting(entered, due: start.addingTimeInterval(3600)))
        // Woken early (another instance, a retry): nothing happens before the hour.
        #expect(advance(entered, at: 59).end == first.end)
        let second = advance(entered, at: 61)
        #expect(second.sends == [1])
        #expect(second.reached == [0, 1, 2])
        let waiting = JourneyPlace(step: 2, since: start.addingTimeInterval(61 * 60), lastSend: 1)
        #expect(second.end == .waiting(waiting, due: waiting.since.addingTimeInterval(1440 * 60)))

        // Opened: on at once, past the branch to the exit; no reminder.
        let opened = advance(waiting, at: 90, JourneyFacts(opened: true))
        #expect(opened.sends == [])
        #expect(opened.reached == [2, 3, 5])
        #expect(opened.end == .completed(lastSend: 1))
        // Not opened within the day: the reminder, then out.
        let reminded = advance(waiting, at: 61 + 1440)
        #expect(reminded.sends == [4])
        #expect(reminded.end == .completed(lastSend: 4))
        // Still waiting before the day is up.
        #expect(advance(waiting, at: 600).sends == [])
    }

    @Test func aMessageSentInTheSameAdvanceIsNotYetOpened() {
        var steps = journey.steps
        steps.remove(at: 2)  // the wait for the open: the branch follows the send at once
        let quick = JourneyDefinition(name: "q", entry: journey.entry, steps: steps)
        let result = JourneyMachine.advance(quick, from: JourneyPlace(step: 1, since: start), facts: JourneyFacts(opened: true), now: start)
        #expect(result.sends == [1, 3])
    }

    @Test func aWaitUntilATimeOfDayKeepsTheDevicesZone() throws {
        let wait = JourneyWait(untilLocalTime: LocalTime("10:00"))
        // 2027-01-15 08:00 UTC is 11:30 in Tehran (the next 10:00 is tomorrow's) and 09:00 in Berlin.
        let morning = try #require(ISO8601DateFormatter().date(from: "2027-01-15T08:00:00Z"))
        #expect(wait.due(since: morning, timeZone: "Europe/Berlin") == ISO8601DateFormatter().date(from: "2027-01-15T09:00:00Z"))
        #expect(wait.due(since: morning, timeZone: "Asia/Tehran") == ISO8601DateFormatter().date(from: "2027-01-16T06:30:00Z"))
        #expect(wait.due(since: morning, timeZone: nil) == ISO8601DateFormatter().date(from: "2027-01-15T10:00:00Z"))
        #expect(wait.due(since: morning, timeZone: "Mars/Olympus") == ISO8601DateFormatter().date(from: "2027-01-15T10:00:00Z"))
    }

    @Test func theHoldoutIsAStableShare() {
        let tokens = (0..<10_000).map { "token-\($0)" }
        let held = tokens.filter { JourneyMachine.isHeldOut($0, journeyID: "j1", percent: 10) }
        #expect((900...1100).contains(held.count), "\(held.count)")
        #expect(held == tokens.filter { JourneyMachine.isHeldOut($0, journeyID: "j1", percent: 10) })
        #expect(!tokens.contains { JourneyMachine.isHeldOut($0, journeyID: "j1", percent: 0) })
    }
}
