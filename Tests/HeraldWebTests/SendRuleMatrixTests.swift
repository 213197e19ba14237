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
        /// Half the devices forgotten (erased) before the send: they get nothing.
        case erasure
        /// Half the devices moved to their FIDs before the send: each gets it once, by its FID.
        case fidMove
        /// The campaign says `max_per_minute`: its requests go out a spacing apart.
        case maxPerMinute
        /// Outside its sending hours: nothing goes out until they open, then every device once.
        case sendingHours
        /// Paused while it waits for its hours: nothing goes out once they open, then resumed, every device once.
        case pause
        /// Cancelled while it waits for its hours: nothing goes out once they open.
        case cancel
        /// Its latest-delivery time passes while it waits for its hours: nothing goes out, and it does not read "sent".
        case expiry
        /// Every request FCM receives was sent with a token of the project's shared quota (the bucket every instance shares).
        case sharedQuota
        /// iOS devices, a lifetime of an hour, and the run due an hour before it starts (as after an
        /// outage): each message lives its hour from its send, not from when it was due.
        case renderAtSend

        /// The rules whose cell holds a campaign's run behind sending hours that are closed now,
        /// acts, then opens them (as the clock would: the run's times are set in the database).
        var holdsTheRun: Bool { [.sendingHours, .pause, .cancel, .expiry].contains(self) }
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
        case (.sharedQuota, .testSend): .exempt("a test goes out at once: one to twenty messages, which FCM counts against the same quota")
        case (.sharedQuota, _), (.renderAtSend, _): .holds
        case (let held, .oneCallInline) where held.holdsTheRun, (let held, .oneCallTemplate) where held.holdsTheRun:
            .exempt("a one-call send goes out as it is accepted: no sending hours or latest-delivery time of a template apply, and nothing waits to be paused")
        case (let held, .testSend) where held.holdsTheRun: .exempt("a test goes out at once, whatever the campaign's hours: it is no run to pause")
        case (let held, _) where held.holdsTheRun: .holds
        case (_, .topic), (_, .condition): .exempt("FCM does not say which devices a topic reaches, so none can be counted or held out")
        case (_, .testSend): .exempt("a test goes to the devices the tester named")
        case (.maxPerMinute, .oneCallInline), (.maxPerMinute, .oneCallTemplate):
            .exempt("a one-call send goes now: its message takes no pace (message.delivery refuses one), and a template's is not applied")
        case (.erasure, .oneCallInline), (.erasure, .oneCallTemplate):
            .exempt("the caller names each recipient's token, and Herald keeps no trace of a forgotten device to refuse it by")
        default: .holds
        }
    }

    static let devices = 40
    static let category = "promotions"
    static let tokens = (0..<devices).map { String(format: "matrix-%02d:APA91b", $0) + String(repeating: "m", count: 120) }
    /// The installation ID a device moves to (22 characters, starting with f).
    static func fid(of token: String) -> String { "fMatrixInstallation" + token.prefix(9).suffix(2) + "x" }

    /// Requests a minute under the `maxPerMinute` rule: 0.1 s apart.
    static let pace = 600

    /// A campaign of `kind` (its audience and, for a planned run, the pace that makes it planned);
    /// under the `maxPerMinute` rule, paced (and a fan-out in two variants, two requests to space).
    static func campaign(_ kind: Kind, for rule: Rule, title: String = "Matrix") -> JSON {
        var object: JSONObject = ["name": .string(title), "notification": ["title": .string(title)]]
        var delivery: JSONObject = ["category": .string(category)]
        if rule == .maxPerMinute {
            delivery["max_per_minute"] = .number(Double(pace))
            if kind.isFanOut { object["variants"] = [["key": "A", "weight": 1], ["key": "B", "weight": 1, "notification": ["title": "Matrix B"]]] }
        }
        if rule.holdsTheRun { delivery["window"] = closedWindow() }
        if rule == .renderAtSend { object["options"] = ["expiry_seconds": .number(Double(lifetime))] }
        if rule == .expiry { delivery["latest_delivery_minutes"] = 30 }
        switch kind {
        case .topic: object["topics"] = ["matrix"]
        case .condition: object["condition"] = "'matrix' in topics && 'vip' in topics"
        case .devicesPlanned:
            object["tokens"] = .array(tokens.map(JSON.string))
            // Paced runs write a request per device (a streamed batch has no pace).
            if rule != .maxPerMinute { delivery["max_per_minute"] = 60_000 }
        case .winnerRollout:
            object["tokens"] = .array(tokens.map(JSON.string))
            object["variants"] = [["key": "A", "weight": 1], ["key": "B", "weight": 1, "notification": ["title": "Matrix B"]]]
            object["holdout_percent"] = 50
        default: object["tokens"] = .array(tokens.map(JSON.string))
        }
        object["delivery"] = .object(delivery)
        return .object(object)
    }

    /// The iOS lifetime under the `renderAtSend` rule, in seconds.
    static let lifetime = 3600

    /// Sending hours (UTC) that open two hours from now, for an hour.
    static func closedWindow() -> JSON {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        func time(_ hoursAhead: Int) -> JSON {
            let parts = calendar.dateComponents([.hour, .minute], from: Date().addingTimeInterval(Double(hoursAhead) * 3600))
            return .string(String(format: "%02d:%02d", parts.hour!, parts.minute!))
        }
        return ["start": time(2), "end": time(3), "time_zone": "UTC"]
    }

    /// The clock reaches the campaign's sending hours: its runs' window opens now.
    static func openHours(_ herald: TestHerald, _ id: String) async throws {
        try herald.server.application.database.pool.withConnection { connection in
            _ = try connection.execute(PostgresQuery(unsafeSQL: """
                UPDATE runs SET window_opens_at = now() - interval '1 minute', window_closes_at = now() + interval '1 hour'
                WHERE campaign_id = '\(id)' AND finished_at IS NULL
                """))
        }
        #expect(try await herald.engineLooksAgain())
    }

    /// Waits until the campaign has `count` runs, each started and waiting for its hours, and the
    /// engine has looked at them since.
    static func waitHeld(_ herald: TestHerald, _ id: String, runs count: Int) async throws {
        #expect(try await eventually(timeout: waitingLimit) {
            try await herald.request("GET", "/api/v1/campaigns/\(id)/runs").json?["items"]?.arrayValue?.count ?? 0 >= count
        })
        #expect(try await herald.engineLooksAgain())
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
    static func runsFinished(_ herald: TestHerald, _ id: String, runs count: Int = 1, statuses: Set<String> = finished) async throws -> Bool {
        let status = try await herald.request("GET", "/api/v1/campaigns/\(id)").json?["status"]?.stringValue ?? ""
        let runs = try await herald.request("GET", "/api/v1/campaigns/\(id)/runs").json?["items"]?.arrayValue ?? []
        return statuses.contains(status) && runs.count >= count && runs.allSatisfy { $0["finished_at"]?.stringValue != nil }
    }

    /// What a send answered: refused (with the answer), accepted and finished, or (a rule that
    /// holds the run) accepted and waiting for its hours, with the runs the campaign then has.
    enum Outcome {
        case refused(TestHerald.Response)
        case finished
        case held(campaign: String, runs: Int)
    }

    /// Sends `kind` (the campaign `prepared` made, for a template or a roll-out) to `targeted`.
    static func act(_ kind: Kind, for rule: Rule, _ herald: TestHerald, prepared: String?, targeted: [String], sendsKey: String) async throws -> Outcome {
        let key = ["Authorization": "Bearer \(sendsKey)", "Idempotency-Key": UUID().uuidString]
        switch kind {
        case .topic, .condition, .devicesStreamed, .devicesPlanned:
            var content = campaign(kind, for: rule)
            if rule == .renderAtSend, case .object(var object) = content {
                object["schedule"] = ["kind": "once", "at": .string(tomorrow()), "time_zone": "UTC"]
                content = .object(object)
            }
            let id = try await create(herald, content)
            if rule == .renderAtSend {
                let scheduled = try await herald.request("POST", "/api/v1/campaigns/\(id)/schedule", headers: ["If-Match": "\"1\""])
                guard scheduled.status == 200 else { return .refused(scheduled) }
                // It falls due an hour ago: its run starts late, as after an outage.
                try herald.server.application.database.pool.withConnection { connection in
                    _ = try connection.execute(PostgresQuery(unsafeSQL: "UPDATE campaigns SET next_run_at = now() - interval '1 hour' WHERE id = '\(id)'"))
                }
                #expect(try await herald.engineLooksAgain())
                #expect(try await eventually(timeout: waitingLimit) { try await runsFinished(herald, id) })
                return .finished
            }
            guard rule.holdsTheRun else { return try await scheduleAndWait(herald, id).map(Outcome.refused) ?? .finished }
            let scheduled = try await herald.request("POST", "/api/v1/campaigns/\(id)/schedule", headers: ["If-Match": "\"1\""])
            guard scheduled.status == 200 else { return .refused(scheduled) }
            try await waitHeld(herald, id, runs: 1)
            return .held(campaign: id, runs: 1)
        case .oneCallInline, .oneCallTemplate:
            let to = JSON.array(targeted.map { ["token": .string($0)] })
            var message: JSONObject = ["notification": ["title": "Matrix"], "delivery": ["category": .string(category)]]
            if rule == .renderAtSend { message["options"] = ["expiry_seconds": .number(Double(lifetime))] }
            let body: JSON = kind == .oneCallInline ? ["message": .object(message), "to": to] : ["campaign": .string(try #require(prepared)), "to": to]
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
            if rule.holdsTheRun {
                try await waitHeld(herald, id, runs: 2)
                return .held(campaign: id, runs: 2)
            }
            #expect(try await eventually(timeout: waitingLimit) { try await runsFinished(herald, id, runs: 2) })
            return .finished
        }
    }

    static func register(_ herald: TestHerald, _ tokens: [String], quiet: [String] = [], platform: DevicePlatform = .android) throws {
        _ = try herald.server.application.database.pool.withConnection { connection in
            try DeviceStore().upsert(tokens.map { Device(token: $0, platform: platform, quietCategories: quiet) }, on: connection)
        }
    }

    /// Nine tomorrow morning, UTC, as a schedule's local time.
    static func tomorrow() -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let day = calendar.dateComponents([.year, .month, .day], from: Date().addingTimeInterval(86_400))
        return String(format: "%04d-%02d-%02dT09:00", day.year!, day.month!, day.day!)
    }

    /// The requests this instance sent with a token of the project's shared bucket (its workers
    /// take tokens before they claim, and give back what they did not send).
    static func tokensUsed(_ herald: TestHerald) throws -> Int {
        _ = try #require(herald.server.application.engine?.quotaLimit, "production runs with the shared quota")
        return Int(herald.server.application.metrics.value("herald_fcm_tokens_taken_total"))
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
        case .oneCallTemplate: prepared = try await Self.create(herald, Self.campaign(.devicesStreamed, for: rule))
        case .testSend:
            prepared = try await Self.create(herald, Self.campaign(.devicesStreamed, for: rule))
            targeted = Array(Self.tokens.prefix(20))  // a test reaches at most 20
        case .winnerRollout:
            let id = try await Self.create(herald, Self.campaign(.winnerRollout, for: rule))
            if rule.holdsTheRun {
                // Its test goes out in its hours, as the roll-out will.
                let scheduled = try await herald.request("POST", "/api/v1/campaigns/\(id)/schedule", headers: ["If-Match": "\"1\""])
                #expect(scheduled.status == 200)
                try await Self.waitHeld(herald, id, runs: 1)
                try await Self.openHours(herald, id)
                #expect(try await eventually(timeout: waitingLimit) { try await Self.runsFinished(herald, id) })
            } else {
                #expect(try await Self.scheduleAndWait(herald, id) == nil)
            }
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
        case .approval, .labelBudget, .maxPerMinute, .sendingHours, .pause, .cancel, .expiry, .sharedQuota: break
        case .renderAtSend: try Self.register(herald, targeted, platform: .ios)
        case .frequencyCap:
            #expect(try await herald.request("PUT", "/api/v1/frequency-caps", json: ["marketing": ["day": 1]]).status == 200)
            // Every targeted device got its one marketing message of the day already.
            let earlier = try await Self.create(herald, ["name": "Earlier", "notification": ["title": "Earlier"],
                                                         "tokens": .array(targeted.map(JSON.string))])
            #expect(try await Self.scheduleAndWait(herald, earlier) == nil)
        case .quietCategory: try Self.register(herald, targeted, quiet: [Self.category])
        case .controlGroup:
            #expect(try await herald.request("PUT", "/api/v1/control-group", json: ["percent": 50]).status == 200)
        case .erasure:
            for token in targeted.prefix(targeted.count / 2) {
                #expect(try await herald.request("DELETE", "/api/v1/devices/\(token)").status == 204)
            }
        case .fidMove:
            for token in targeted.prefix(targeted.count / 2) {
                let moved = try await herald.request("POST", "/api/v1/devices/\(token)/move-to-fid", json: ["fid": .string(Self.fid(of: token))])
                #expect(moved.status == 200, "\(moved.json as Any)")
            }
        }
        let before = sink.emulator.messages().count
        let usedBefore = rule == .sharedQuota ? try Self.tokensUsed(herald) : 0

        let outcome = try await Self.act(kind, for: rule, herald, prepared: prepared, targeted: targeted, sendsKey: key)
        let sent = Array(sink.emulator.messages().dropFirst(before))
        let reached = Set(sent.compactMap { $0.message["token"]?.stringValue })
        let reachedByFID = sent.compactMap { $0.message["fid"]?.stringValue }
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
        case (.sendingHours, .holds), (.pause, .holds), (.cancel, .holds), (.expiry, .holds):
            let held = rule
            guard case .held(let id, let runs) = outcome else { Issue.record("\(context): not held: \(outcome)"); return }
            #expect(sent.isEmpty, "\(context): nothing goes out before its hours")
            func campaign() async throws -> TestHerald.Response { try await herald.request("GET", "/api/v1/campaigns/\(id)") }
            func control(_ action: String) async throws {
                let etag = try #require(try await campaign().header("ETag"))
                let answer = try await herald.request("POST", "/api/v1/campaigns/\(id)/\(action)", headers: ["If-Match": etag])
                #expect(answer.status == 200, "\(context): \(action) \(answer.status) \(answer.json as Any)")
            }
            switch held {
            case .pause:
                try await control("pause")
                try await Self.openHours(herald, id)
                #expect(sink.emulator.messages().count == before, "\(context): nothing goes out while paused")
                try await control("resume")
            case .cancel: try await control("cancel")
            case .expiry:
                // Its thirty minutes pass before its hours open.
                try herald.server.application.database.pool.withConnection { connection in
                    _ = try connection.execute(PostgresQuery(unsafeSQL: "UPDATE runs SET expires_at = now() WHERE campaign_id = '\(id)' AND finished_at IS NULL"))
                }
            default: break
            }
            if held != .pause { try await Self.openHours(herald, id) }
            let status: Set<String> = held == .cancel ? ["cancelled"] : Self.finished
            let ended = try await eventually(timeout: waitingLimit) { try await Self.runsFinished(herald, id, runs: runs, statuses: status) }
            let endedAs = try await campaign().json?["status"]?.stringValue ?? "?"
            #expect(ended, "\(context): \(endedAs)")
            let afterwards = Array(sink.emulator.messages().dropFirst(before))
            let reachedAfterwards = afterwards.compactMap { $0.message["token"]?.stringValue }
            switch held {
            case .sendingHours, .pause:
                if kind.isFanOut {
                    #expect(afterwards.contains { $0.message["topic"] != nil || $0.message["condition"] != nil }, "\(context): the fan-out goes out in its hours")
                } else {
                    #expect(reachedAfterwards.sorted() == targeted.sorted(), "\(context): every device once, \(reachedAfterwards.count) of \(targeted.count)")
                }
            default:
                #expect(afterwards.isEmpty, "\(context): \(afterwards.count) went out")
                if held == .expiry { #expect(endedAs != "sent", "\(context): nothing sent reads as sent") }
            }
        case (.sharedQuota, .holds):
            guard case .finished = outcome else { Issue.record("\(context): refused"); return }
            let used = try Self.tokensUsed(herald) - usedBefore
            #expect(!sent.isEmpty && used == sent.count, "\(context): FCM received \(sent.count), with a token of the shared quota \(used)")
            if !kind.isFanOut { #expect(reached == Set(targeted), "\(context): every device once") }
        case (.renderAtSend, .holds):
            guard case .finished = outcome else { Issue.record("\(context): refused"); return }
            #expect(!sent.isEmpty, "\(context)")
            for message in sent {
                let expiration = message.message["apns"]?["headers"]?["apns-expiration"]?.stringValue.flatMap(Double.init)
                // Its hour from the send (a second or two either way for rounding), not from an hour before.
                #expect(expiration.map { abs($0 - (message.receivedAt.seconds + Double(Self.lifetime))) <= 2 } == true,
                        "\(context): apns-expiration \(expiration.map { $0 - message.receivedAt.seconds } as Any) s after the send")
            }
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
        case (.erasure, .holds):
            guard case .finished = outcome else { Issue.record("\(context): refused"); return }
            let forgotten = Set(targeted.prefix(targeted.count / 2))
            #expect(reached == Set(targeted).subtracting(forgotten), "\(context): \(reached.intersection(forgotten).count) forgotten devices got it")
        case (.fidMove, .holds):
            guard case .finished = outcome else { Issue.record("\(context): refused"); return }
            let moved = Array(targeted.prefix(targeted.count / 2))
            #expect(reached == Set(targeted).subtracting(moved), "\(context): \(reached.intersection(moved).count) sent to the token moved from")
            #expect(reachedByFID.sorted() == moved.map(Self.fid(of:)).sorted(), "\(context): by FID \(reachedByFID.count) of \(moved.count)")
            #expect(sent.count == targeted.count, "\(context): each device once")
        case (.maxPerMinute, .holds):
            guard case .finished = outcome else { Issue.record("\(context): refused"); return }
            let times = sent.map(\.receivedAt.seconds).sorted()
            let spacing = 60 / Double(Self.pace)
            #expect(times.count >= 2, "\(context)")
            // A busy machine only spreads them further: the bound is from below.
            let span = (times.last ?? 0) - (times.first ?? 0)
            #expect(span >= Double(times.count - 1) * spacing * 0.9, "\(context): \(times.count) requests within \(span) s")
            if !kind.isFanOut { #expect(reached == Set(targeted), "\(context): every device once") }
        case (.controlGroup, .holds):
            guard case .finished = outcome else { Issue.record("\(context): refused"); return }
            let group = try herald.server.application.database.pool.withConnection { try ContactPolicyStore().read(on: $0).controlGroup }
            let held = Set(targeted.filter { group.contains($0) })
            #expect(!held.isEmpty && held.count < targeted.count, "\(context): a group of half holds some of \(targeted.count)")
            #expect(reached == Set(targeted).subtracting(held), "\(context): \(reached.intersection(held).count) of the group got it")
        }
    }
}
