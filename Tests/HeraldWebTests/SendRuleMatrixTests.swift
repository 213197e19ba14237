import FCMEmulator
import Foundation
@testable import HeraldApp
import HeraldCore
import HeraldJSON
import HeraldPostgres
import HeraldTestSupport
import Testing

/// Every rule Herald promises, tried on every kind of send, through the emulator: the cells are
/// generated from the list of rules × the list of kinds, and each asserts the rule's effect or its
/// stated exemption (`effect`, the table `SendRules` states). A new kind of send is a new case of
/// `Kind`, and every rule is then tried on it.
@Suite(.serialized) struct SendRuleMatrixTests {
    enum Kind: String, CaseIterable, Sendable {
        case topic, condition, devicesStreamed, devicesPlanned, oneCallInline, oneCallTemplate, testSend, winnerRollout

        var isFanOut: Bool { self == .topic || self == .condition }
        var isCampaignRun: Bool { [.topic, .condition, .devicesStreamed, .devicesPlanned].contains(self) }
    }

    enum Rule: String, CaseIterable, Sendable {
        /// `HERALD_APPROVALS` on, nothing approved: nothing reaches a device.
        case approval
        /// A marketing cap of one a day, every device already messaged today: none gets another.
        case frequencyCap
        /// Every device switched the campaign's category off: none gets it.
        case quietCategory
        /// Half the devices in the control group: none of those gets a marketing message.
        case controlGroup
        /// Every label FCM sees is counted in the day's budget.
        case labelBudget
    }

    enum Effect: Equatable, CustomStringConvertible {
        case holds
        case exempt(String)

        var description: String {
            switch self {
            case .holds: "holds"
            case .exempt(let why): "exempt: \(why)"
            }
        }
    }

    /// What each rule does to each kind of send: the exemptions `SendRules` states, and their reasons.
    static func effect(_ rule: Rule, on kind: Kind) -> Effect {
        switch (rule, kind) {
        case (.approval, _), (.labelBudget, _): .holds
        case (_, .topic), (_, .condition): .exempt("FCM does not say which devices a topic reaches, so none can be counted or held out")
        case (_, .testSend): .exempt("a test goes to the devices the tester named")
        default: .holds
        }
    }

    static let devices = 40
    static let category = "promotions"
    static let tokens = (0..<devices).map { String(format: "matrix-%02d:APA91b", $0) + String(repeating: "m", count: 120) }

    /// A campaign of `kind` (its audience and, for a planned run, the pace that makes it planned).
    static func campaign(_ kind: Kind, title: String = "Matrix") -> JSON {
        var object: JSONObject = ["name": .string(title), "notification": ["title": .string(title)],
                                  "delivery": ["category": .string(category)]]
        switch kind {
        case .topic: object["topics"] = ["matrix"]
        case .condition: object["condition"] = "'matrix' in topics && 'vip' in topics"
        case .devicesPlanned:
            object["tokens"] = .array(tokens.map(JSON.string))
            // Paced runs write a request per device (a streamed batch has no pace).
            object["delivery"] = ["category": .string(category), "max_per_minute": 60_000]
        case .winnerRollout:
            object["tokens"] = .array(tokens.map(JSON.string))
            object["variants"] = [["key": "A", "weight": 1], ["key": "B", "weight": 1, "notification": ["title": "Matrix B"]]]
            object["holdout_percent"] = 50
        default: object["tokens"] = .array(tokens.map(JSON.string))
        }
        return .object(object)
    }

    static func create(_ herald: TestHerald, _ campaign: JSON) async throws -> String {
        let created = try await herald.request("POST", "/api/v1/campaigns", json: campaign)
        return try #require(created.json?["id"]?.stringValue, "\(created.json as Any)")
    }

    static let finished: Set<String> = ["sent", "nothing_sent", "partially_failed", "failed"]

    /// Schedules a campaign; nil when refused (with the answer), else waits until its runs end.
    static func scheduleAndWait(_ herald: TestHerald, _ id: String) async throws -> TestHerald.Response? {
        let scheduled = try await herald.request("POST", "/api/v1/campaigns/\(id)/schedule", headers: ["If-Match": "\"1\""])
        guard scheduled.status == 200 else { return scheduled }
        #expect(try await eventually(timeout: waitingLimit) { try await runsFinished(herald, id) })
        return nil
    }

    /// Whether the campaign has a run and every one of its runs has ended.
    static func runsFinished(_ herald: TestHerald, _ id: String, runs count: Int = 1) async throws -> Bool {
        let status = try await herald.request("GET", "/api/v1/campaigns/\(id)").json?["status"]?.stringValue ?? ""
        let runs = try await herald.request("GET", "/api/v1/campaigns/\(id)/runs").json?["items"]?.arrayValue ?? []
        return finished.contains(status) && runs.count >= count && runs.allSatisfy { $0["finished_at"]?.stringValue != nil }
    }

    /// What a send answered: refused (with the answer), or accepted and finished.
    enum Outcome {
        case refused(TestHerald.Response)
        case finished
    }

    /// Sends `kind` (the campaign `prepared` made, for a template or a roll-out) to `targeted`.
    static func act(_ kind: Kind, _ herald: TestHerald, prepared: String?, targeted: [String], sendsKey: String) async throws -> Outcome {
        let key = ["Authorization": "Bearer \(sendsKey)", "Idempotency-Key": UUID().uuidString]
        switch kind {
        case .topic, .condition, .devicesStreamed, .devicesPlanned:
            let id = try await create(herald, campaign(kind))
            return try await scheduleAndWait(herald, id).map(Outcome.refused) ?? .finished
        case .oneCallInline, .oneCallTemplate:
            let to = JSON.array(targeted.map { ["token": .string($0)] })
            let body: JSON = kind == .oneCallInline
                ? ["message": ["notification": ["title": "Matrix"], "delivery": ["category": .string(category)]], "to": to]
                : ["campaign": .string(try #require(prepared)), "to": to]
            let sent = try await herald.request("POST", "/api/v1/sends", json: body, headers: key)
            guard sent.status == 202, let id = sent.json?["id"]?.stringValue else { return .refused(sent) }
            #expect(try await eventually(timeout: waitingLimit) {
                try await herald.request("GET", "/api/v1/sends/\(id)", headers: ["Authorization": "Bearer \(sendsKey)"]).json?["status"]?.stringValue != "sending"
            })
            return .finished
        case .testSend:
            let tested = try await herald.request("POST", "/api/v1/campaigns/\(try #require(prepared))/test",
                                                  json: ["tokens": .array(targeted.map(JSON.string))])
            return tested.status == 200 ? .finished : .refused(tested)
        case .winnerRollout:
            let id = try #require(prepared)
            let rollout = try await herald.request("POST", "/api/v1/campaigns/\(id)/send-winner", json: ["variant": "B"])
            guard rollout.status == 200 else { return .refused(rollout) }
            #expect(try await eventually(timeout: waitingLimit) { try await runsFinished(herald, id, runs: 2) })
            return .finished
        }
    }

    static func register(_ herald: TestHerald, _ tokens: [String], quiet: [String] = []) throws {
        _ = try herald.server.application.database.pool.withConnection { connection in
            try DeviceStore().upsert(tokens.map { Device(token: $0, platform: .android, quietCategories: quiet) }, on: connection)
        }
    }

    @Test(.timeLimit(.minutes(4)), arguments: Rule.allCases, Kind.allCases)
    func cell(_ rule: Rule, _ kind: Kind) async throws {
        let effect = Self.effect(rule, on: kind)
        let sink = try EmulatorSink()
        let approvals = ["HERALD_APPROVALS": "on"]
        // A roll-out needs its test sent first: with approvals, by a Herald that had them off then.
        var herald = try TestHerald(environment: sink.environment.merging(rule == .approval && kind != .winnerRollout ? approvals : [:]) { $1 })
        try Self.register(herald, Self.tokens)

        // Prepare what the kind needs: a template, a campaign to test, or an A/B test with a holdout.
        var prepared: String?
        var targeted = Self.tokens
        switch kind {
        case .oneCallTemplate: prepared = try await Self.create(herald, Self.campaign(.devicesStreamed))
        case .testSend:
            prepared = try await Self.create(herald, Self.campaign(.devicesStreamed))
            targeted = Array(Self.tokens.prefix(20))  // a test reaches at most 20
        case .winnerRollout:
            let id = try await Self.create(herald, Self.campaign(.winnerRollout))
            #expect(try await Self.scheduleAndWait(herald, id) == nil)
            let tested = Set(sink.emulator.messages().compactMap { $0.message["token"]?.stringValue })
            targeted = Self.tokens.filter { !tested.contains($0) }  // the holdout: what the roll-out reaches
            try #require(!targeted.isEmpty && targeted.count < Self.tokens.count, "a holdout of half leaves some devices")
            prepared = id
            if rule == .approval { herald = try TestHerald(databaseURL: herald.databaseURL, environment: sink.environment.merging(approvals) { $1 }) }
        default: break
        }
        let key = try herald.server.application.database.pool.withConnection { connection in
            try APIKeyStore().create(name: "matrix", role: .publisher, scope: .sends, createdBy: "test", on: connection).key
        }

        // Arrange the rule.
        switch rule {
        case .approval, .labelBudget: break
        case .frequencyCap:
            #expect(try await herald.request("PUT", "/api/v1/frequency-caps", json: ["marketing": ["day": 1]]).status == 200)
            // Every targeted device got its one marketing message of the day already.
            let earlier = try await Self.create(herald, ["name": "Earlier", "notification": ["title": "Earlier"],
                                                         "tokens": .array(targeted.map(JSON.string))])
            #expect(try await Self.scheduleAndWait(herald, earlier) == nil)
        case .quietCategory: try Self.register(herald, targeted, quiet: [Self.category])
        case .controlGroup:
            #expect(try await herald.request("PUT", "/api/v1/control-group", json: ["percent": 50]).status == 200)
        }
        let before = sink.emulator.messages().count

        let outcome = try await Self.act(kind, herald, prepared: prepared, targeted: targeted, sendsKey: key)
        let sent = Array(sink.emulator.messages().dropFirst(before))
        let reached = Set(sent.compactMap { $0.message["token"]?.stringValue })
        let fannedOut = sent.contains { $0.message["topic"] != nil || $0.message["condition"] != nil }
        let context = "\(rule.rawValue) × \(kind.rawValue) (\(effect)): \(sent.count) messages"

        switch (rule, effect) {
        case (.approval, _):
            guard case .refused(let answer) = outcome else {
                Issue.record("\(context): sent without an approval")
                return
            }
            #expect(answer.status == 409 || answer.status == 422, "\(context): \(answer.status) \(answer.json as Any)")
            #expect(sent.isEmpty, "\(context): nothing reaches a device unapproved")
        case (.labelBudget, _):
            guard case .finished = outcome else { Issue.record("\(context): refused"); return }
            let seen = sent.reduce(into: Set<String>()) { $0.formUnion(LabelBudgetTests.labels(in: $1.message)) }
            let counted = Set(try herald.server.application.database.pool.withConnection { connection in
                try connection.query("SELECT label FROM label_days WHERE day = (now() AT TIME ZONE 'UTC')::date").map { try $0.decode(String.self, at: 0) }
            })
            #expect(!sent.isEmpty && !seen.isEmpty && seen.isSubset(of: counted), "\(context): FCM saw \(seen.sorted()), counted \(counted.sorted())")
        case (_, .exempt):
            guard case .finished = outcome else { Issue.record("\(context): refused"); return }
            if kind.isFanOut {
                #expect(fannedOut, "\(context): the fan-out goes out as it is")
            } else {
                #expect(reached == Set(targeted), "\(context): every named device gets it")
            }
        case (.frequencyCap, .holds), (.quietCategory, .holds):
            guard case .finished = outcome else { Issue.record("\(context): refused"); return }
            #expect(reached.isDisjoint(with: targeted), "\(context): \(reached.count) devices got it")
            if kind.isCampaignRun || kind == .oneCallTemplate {
                // Outcomes tell the truth: a campaign that reached nobody does not read "sent".
                let campaigns = try await herald.request("GET", "/api/v1/campaigns?limit=100").json?["items"]?.arrayValue ?? []
                let matrix = campaigns.filter { $0["name"] == "Matrix" && kind.isCampaignRun }
                #expect(matrix.allSatisfy { $0["status"] == "nothing_sent" }, "\(context): \(matrix.map { $0["status"] as Any })")
            }
        case (.controlGroup, .holds):
            guard case .finished = outcome else { Issue.record("\(context): refused"); return }
            let group = try herald.server.application.database.pool.withConnection { try ContactPolicyStore().read(on: $0).controlGroup }
            let held = Set(targeted.filter { group.contains($0) })
            #expect(!held.isEmpty && held.count < targeted.count, "\(context): a group of half holds some of \(targeted.count)")
            #expect(reached == Set(targeted).subtracting(held), "\(context): \(reached.intersection(held).count) of the group got it")
        }
    }
}
