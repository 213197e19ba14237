import FCMMessage
import Foundation
import HeraldCore
import HeraldJSON
import Testing

/// "09:00 in each recipient's time zone" on a simulated clock: when runs start, when each zone's
/// wave falls due, across daylight-saving changes, and what happens to zones already past.
@Suite struct RecipientTimeTests {
    func utc(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }
    func iso(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }
    static let zones = ["Asia/Tehran", "Europe/Berlin", "America/New_York"]

    func daily(from: String = "2026-03-06", until: String = "2026-03-31") throws -> CampaignSpec {
        try campaign("""
            {"name": "Morning", "notification": {"title": "Good morning"}, "tokens": ["\(String(repeating: "t", count: 150))"],
             "schedule": {"kind": "daily", "time": "09:00", "time_zone": "Europe/Berlin", "until": "\(until)"},
             "delivery": {"recipient_time": {"past": "skip"}}}
            """)
    }

    /// A daily 09:00 campaign walked run by run, then a clock stepped a minute at a time through
    /// each run: every zone's wave falls due at the minute its clocks read 09:00 — Berlin an hour
    /// earlier in UTC from its spring change (29 March 2026), New York from its own (8 March),
    /// Tehran (no daylight saving since 2022) always at 05:30 UTC.
    @Test func eachZonesWaveStartsAt0900LocalOnTheDaylightSavingChangeDays() throws {
        let spec = try daily()
        let schedule = try #require(spec.schedule)
        var waves: [String: [String]] = [:]
        var occurrence = try Arming.firstRun(of: spec, now: utc("2026-03-06T00:00:00Z")).get()
        // The run starts where 09:00 comes first (UTC+14): 19:00 UTC the day before. (09:00 on
        // 6 March had passed there already, so the first run is the 7th's; the last, the 31st's.)
        #expect(iso(occurrence) == "2026-03-06T19:00:00Z")
        while true {
            var plan = RecipientWaves(local: RecipientTime.localTime(ofRunAt: occurrence, schedule: schedule), fallbackZone: "Europe/Berlin",
                                      policy: .skip, latestDeliveryMinutes: nil, occurrence: occurrence)
            let slots = Dictionary(uniqueKeysWithValues: Self.zones.map { ($0, plan.slot(for: $0)) })
            var clock = occurrence, due: Set<String> = []
            while due.count < Self.zones.count, clock < occurrence.addingTimeInterval(2 * 86400) {
                for zone in Self.zones where !due.contains(zone) {
                    guard case .due(let at, _) = slots[zone], at <= clock else { continue }
                    due.insert(zone)
                    let local = WallClock.local(at: clock, in: TimeZone(identifier: zone)!)
                    #expect(local.time == LocalTime("09:00")!, "\(zone) on \(local.date)")
                    waves[zone, default: []].append(iso(clock))
                }
                clock = clock.addingTimeInterval(60)
            }
            guard let next = Arming.nextRun(of: spec, after: occurrence, now: occurrence) else { break }
            occurrence = next
        }
        #expect(waves["Asia/Tehran"]?.count == 25 && waves["Asia/Tehran"]?.allSatisfy { $0.hasSuffix("T05:30:00Z") } == true)
        let berlin = try #require(waves["Europe/Berlin"]), newYork = try #require(waves["America/New_York"])
        #expect(berlin.count == 25 && newYork.count == 25)
        #expect(berlin.contains("2026-03-28T08:00:00Z") && berlin.contains("2026-03-29T07:00:00Z") && berlin.contains("2026-03-30T07:00:00Z"))
        #expect(newYork.contains("2026-03-07T14:00:00Z") && newYork.contains("2026-03-08T13:00:00Z") && newYork.contains("2026-03-09T13:00:00Z"))
    }

    /// A one-off scheduled after its first waves: it starts at once while some zone still has its
    /// time ahead; a zone already past is skipped (reported expired) or sent at once, as chosen.
    /// A weekly Mon/Wed/Sat 09:00 run, read from a Thursday: it starts when the first zone in the
    /// world reaches Saturday 09:00 (Friday 19:00 UTC, 22:30 in Tehran: what the review once
    /// offered to "schedule for"), and its waves span to the last zone's 09:00; listed zones
    /// narrow the span to theirs.
    @Test func aRunsWavesSpanFromTheFirstZoneToTheLast() throws {
        let spec = try campaign("""
            {"name": "Weekly", "notification": {"title": "Hi"}, "topics": ["news"],
             "schedule": {"kind": "weekly", "days": ["mon", "wed", "sat"], "time": "09:00", "time_zone": "Asia/Tehran"},
             "delivery": {"recipient_time": {"past": "skip"}}}
            """)
        let schedule = try #require(spec.schedule)
        let start = try Arming.firstRun(of: spec, now: utc("2026-11-26T12:00:00Z")).get()
        #expect(iso(start) == "2026-11-27T19:00:00Z")
        #expect(RecipientTime.localTime(ofRunAt: start, schedule: schedule) == LocalDateTime("2026-11-28T09:00"))
        let anywhere = RecipientTime.waveSpan(of: schedule, timeZones: nil, firstRun: start)
        #expect(iso(anywhere.first) == "2026-11-27T19:00:00Z" && iso(anywhere.last) == "2026-11-28T21:00:00Z")
        let listed = RecipientTime.waveSpan(of: schedule, timeZones: ["Europe/Berlin", "Asia/Tehran"], firstRun: start)
        #expect(iso(listed.first) == "2026-11-28T05:30:00Z" && iso(listed.last) == "2026-11-28T08:00:00Z")
    }

    @Test func zonesAlreadyPastAreSkippedOrSentAtOnceAsChosen() throws {
        let spec = try campaign("""
            {"name": "Launch", "notification": {"title": "We are live"}, "tokens": ["\(String(repeating: "t", count: 150))"],
             "schedule": {"kind": "once", "at": "2026-03-29T09:00", "time_zone": "Europe/Berlin"},
             "delivery": {"recipient_time": {"past": "send"}, "latest_delivery_minutes": 60}}
            """)
        let now = utc("2026-03-29T06:00:00Z")  // 09:30 in Tehran, 08:00 in Berlin
        #expect(try Arming.firstRun(of: spec, now: now).get() == now)
        let local = RecipientTime.localTime(ofRunAt: now, schedule: try #require(spec.schedule))
        var send = RecipientWaves(local: local, fallbackZone: "Europe/Berlin", policy: .send, latestDeliveryMinutes: 60, occurrence: now)
        #expect(send.slot(for: "Asia/Tehran") == .due(at: now, expires: utc("2026-03-29T07:00:00Z")))
        #expect(send.slot(for: "Europe/Berlin") == .due(at: utc("2026-03-29T07:00:00Z"), expires: utc("2026-03-29T08:00:00Z")))
        // A device with no zone, or one the system does not know, gets the schedule's zone.
        #expect(send.slot(for: nil) == send.slot(for: "Europe/Berlin"))
        #expect(send.slot(for: "Mars/Olympus_Mons") == send.slot(for: "Europe/Berlin"))
        var skip = RecipientWaves(local: local, fallbackZone: "Europe/Berlin", policy: .skip, latestDeliveryMinutes: nil, occurrence: now)
        #expect(skip.slot(for: "Asia/Tehran") == .missed(at: utc("2026-03-29T05:30:00Z")))
        #expect(skip.slot(for: "America/New_York") == .due(at: utc("2026-03-29T13:00:00Z"), expires: nil))

        // Once 09:00 has passed even where it comes last (UTC−12), the time is refused.
        let late = Arming.firstRun(of: spec, now: utc("2026-03-29T21:00:01Z"))
        guard case .failure(let errors) = late else { Issue.record("a time passed everywhere was accepted"); return }
        #expect(errors.errors.map(\.code) == ["in_the_past"])
        #expect(errors.errors.first?.message.contains("every time zone") == true)
    }

    @Test func recipientTimeNeedsALocalTimeAndRoomInTheConditionAndRoundTrips() throws {
        let unscheduled = try errors(of: """
            {"name": "x", "notification": {"title": "t"}, "segment": "8a5f3b9e-4f1c-4d2a-9c3e-1b2a3c4d5e6f", "delivery": {"recipient_time": {"past": "later"}}}
            """)
        #expect(Set(unscheduled.map(\.code)) == ["invalid_value", "needs_local_time"])
        let schedule = #""schedule": {"kind": "once", "at": "2030-01-01T09:00", "time_zone": "Asia/Tehran"}"#
        // Devices carry their own zone; a list of zones is for topics.
        let zonesForDevices = try errors(of: """
            {"name": "x", "notification": {"title": "t"}, "tokens": ["\(String(repeating: "t", count: 150))"], \(schedule),
             "delivery": {"recipient_time": {"time_zones": ["Asia/Tehran"]}}}
            """)
        #expect(zonesForDevices.map(\.code) == ["not_for_devices"])
        let badZones = try errors(of: """
            {"name": "x", "notification": {"title": "t"}, "topics": ["news"], \(schedule),
             "delivery": {"recipient_time": {"time_zones": ["Asia/Tehran", "Moon/Base", "Asia/Tehran"]}}}
            """)
        #expect(badZones.map(\.path) == ["delivery.recipient_time.time_zones[1]", "delivery.recipient_time.time_zones[2]"])
        // The time-zone topic takes one of a condition's five places (two with A/B buckets).
        let full = try errors(of: """
            {"name": "x", "notification": {"title": "t"}, "condition": "'a' in topics || 'b' in topics || 'c' in topics || 'd' in topics", \(schedule),
             "holdout_percent": 10, "delivery": {"recipient_time": {}}}
            """)
        #expect(full.map(\.code) == ["too_many_topics"] && full.first?.limit == 3)
        #expect(full.first?.message.contains("time-zone topic") == true)
        let topics = try campaign("""
            {"name": "x", "notification": {"title": "t"}, "topics": ["news"], \(schedule),
             "delivery": {"recipient_time": {"past": "send", "time_zones": ["Asia/Tehran", "Etc/GMT+12"]}}}
            """)
        #expect(topics.delivery.recipientTime == RecipientTime(past: .send, timeZones: ["Asia/Tehran", "Etc/GMT+12"]))
        #expect(try campaign(topics.toJSON().serializedString()) == topics)

        let spec = try daily()
        #expect(spec.delivery.recipientTime == RecipientTime(past: .skip))
        #expect(spec.toJSON()["delivery"]?["recipient_time"] == ["past": "skip"])
        #expect(try campaign(spec.toJSON().serializedString()) == spec)
        // The latest-delivery time counts from each wave, so the run itself has no expiry.
        var withLatest = spec
        withLatest.delivery.latestDeliveryMinutes = 30
        #expect(withLatest.delivery.expiry(ofRunDueAt: utc("2026-03-10T19:00:00Z")) == nil)
    }

    /// Topics at recipient time: the plan once per zone, each condition ANDed with the zone's
    /// time-zone topic, and never more than FCM's five topics in a condition, A/B buckets included.
    @Test func topicsAreSentOncePerZoneThroughTheZonesTopic() throws {
        #expect(TimeZoneTopic.name("Asia/Tehran") == "tz.Asia.Tehran")
        #expect(TimeZoneTopic.name("America/Argentina/Buenos_Aires") == "tz.America.Argentina.Buenos_Aires")
        #expect(TimeZoneTopic.name("Etc/GMT+12") == "tz.Etc.GMT%2B12")
        #expect(TimeZoneTopic.name("Etc/GMT+12").allSatisfy { $0.isLetter || $0.isNumber || "-_.~%".contains($0) })

        let news = try campaign("""
            {"name": "x", "notification": {"title": "t"}, "topics": ["news"],
             "schedule": {"kind": "once", "at": "2030-01-01T09:00", "time_zone": "Asia/Tehran"}, "delivery": {"recipient_time": {}}}
            """)
        let plan = FanOutPlanner.planInZones(campaign: news, zones: ["Asia/Tehran", "Europe/Berlin"], campaignID: "c", sendTime: Date())
        #expect(plan.requests.map(\.target) == [.condition("'news' in topics && 'tz.Asia.Tehran' in topics"),
                                                .condition("'news' in topics && 'tz.Europe.Berlin' in topics")])
        #expect(plan.requests.map(\.zone) == ["Asia/Tehran", "Europe/Berlin"])
        #expect(plan.requests.allSatisfy { $0.message.target == $0.target })

        let wide = try campaign("""
            {"name": "x", "notification": {"title": "t"}, "topics": ["a", "b", "c", "d", "e", "f"], "holdout_percent": 10,
             "variants": [{"key": "A", "weight": 1}, {"key": "B", "weight": 1}],
             "schedule": {"kind": "once", "at": "2030-01-01T09:00", "time_zone": "Asia/Tehran"}, "delivery": {"recipient_time": {}}}
            """)
        let zoned = FanOutPlanner.planInZones(campaign: wide, zones: ["Asia/Tehran", "America/New_York"], campaignID: "c", sendTime: Date())
        let plain = FanOutPlanner.plan(campaign: wide, campaignID: "c", sendTime: Date(), topicLimit: TopicCondition.maximumTopics - 1)
        #expect(zoned.requests.count == 2 * plain.requests.count)
        for request in zoned.requests {
            guard case .condition(let text) = request.target, let condition = try? TopicCondition.parse(text) else {
                Issue.record("not a condition: \(request.target)"); continue
            }
            #expect(condition.topicCount <= TopicCondition.maximumTopics, "\(text)")
            #expect(condition.topicMentions.last == TimeZoneTopic.name(request.zone ?? ""))
        }
        #expect(FanOutPlanner.planInZones(campaign: news, zones: [], campaignID: "c", sendTime: Date()).notes == [.noTimeZones])
    }
}
