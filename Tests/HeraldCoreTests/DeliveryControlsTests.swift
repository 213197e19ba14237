import Foundation
import HeraldCore
import HeraldJSON
import Testing

/// Sending hours on a simulated clock, the latest-delivery time's cap on FCM's TTL, and the
/// contract of `delivery` and `auto_winner`.
@Suite struct DeliveryControlsTests {
    func utc(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }
    func iso(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }

    /// Quiet hours 20:00–08:00 in Berlin are the window 08:00–20:00. A clock stepped a minute at a
    /// time over three days around the spring change sees sending pause at each 20:00 local and
    /// resume at each 08:00 local, an hour earlier in UTC after the change.
    @Test func aQuietWindowFrom20To08PausesAt20AndResumesAt08AcrossTheClockChange() {
        let window = SendingWindow(start: LocalTime("08:00")!, end: LocalTime("20:00")!, timeZone: "Europe/Berlin")
        var now = utc("2026-03-28T06:00:00Z")
        var open = window.isOpen(at: now)
        var changes: [String] = []
        while now < utc("2026-03-30T21:00:00Z") {
            now = now.addingTimeInterval(60)
            let isOpen = window.isOpen(at: now)
            if isOpen != open { changes.append("\(isOpen ? "resume" : "pause") \(iso(now))") }
            open = isOpen
        }
        #expect(changes == [
            "resume 2026-03-28T07:00:00Z",  // 08:00 CET
            "pause 2026-03-28T19:00:00Z",  // 20:00 CET
            "resume 2026-03-29T06:00:00Z",  // 08:00 CEST: clocks went forward at 02:00
            "pause 2026-03-29T18:00:00Z",  // 20:00 CEST
            "resume 2026-03-30T06:00:00Z",
            "pause 2026-03-30T18:00:00Z",
        ])
        // While paused, the interval says when sending resumes; while open, when it pauses.
        let night = window.interval(around: utc("2026-03-28T22:00:00Z"))
        #expect(iso(night.opens) == "2026-03-29T06:00:00Z" && iso(night.closes) == "2026-03-29T18:00:00Z")
        let day = window.interval(around: utc("2026-03-28T12:00:00Z"))
        #expect(iso(day.opens) == "2026-03-28T07:00:00Z" && iso(day.closes) == "2026-03-28T19:00:00Z")
    }

    @Test func aWindowPastMidnightOpensTheEveningBefore() {
        let night = SendingWindow(start: LocalTime("22:00")!, end: LocalTime("02:00")!, timeZone: "Asia/Tehran")
        // 01:00 in Tehran (UTC+3:30) on 2026-06-10 is 21:30 UTC on 2026-06-09: inside the stretch that opened at 22:00.
        let inside = night.interval(around: utc("2026-06-09T21:30:00Z"))
        #expect(iso(inside.opens) == "2026-06-09T18:30:00Z" && iso(inside.closes) == "2026-06-09T22:30:00Z")
        #expect(night.isOpen(at: utc("2026-06-09T21:30:00Z")))
        #expect(!night.isOpen(at: utc("2026-06-10T12:00:00Z")))
    }

    @Test func theLatestDeliveryTimeCapsEveryPlatformsLifetime() throws {
        var spec = try campaign(#"{"name": "Show", "notification": {"title": "Tonight", "body": "On air at 20:15"}, "topics": ["tv"], "options": {"expiry_seconds": 86400}, "delivery": {"latest_delivery_minutes": 30}}"#)
        let sendTime = utc("2026-05-01T18:00:00Z")
        #expect(spec.delivery.expiry(ofRunDueAt: sendTime) == utc("2026-05-01T18:30:00Z"))
        let message = try #require(FanOutPlanner.plan(campaign: spec.forSending, buckets: AudienceBuckets(count: 4), campaignID: "c", sendTime: sendTime)
            .requests.first?.message.json())
        let json = message
        #expect(json["android"]?["ttl"] == "1800s")
        #expect(json["webpush"]?["headers"]?["TTL"] == "1800")
        #expect(json["apns"]?["headers"]?["apns-expiration"]?.stringValue == String(Int(sendTime.timeIntervalSince1970) + 1800))
        // A shorter expiry of the campaign's own stays; none gets the cap.
        #expect(spec.delivery.cappedExpiry(600) == 600)
        #expect(spec.delivery.cappedExpiry(nil) == 1800)
        spec.delivery = DeliveryControls()
        #expect(spec.forSending.options.expirySeconds == 86400)
    }

    @Test func theContractReadsAndWritesDeliveryAndAutoWinner() throws {
        let text = #"""
            {"name": "AB", "notification": {"title": "T", "body": "B"}, "topics": ["news"], "holdout_percent": 20,
             "variants": [{"key": "A", "weight": 1}, {"key": "B", "weight": 1}],
             "delivery": {"max_per_minute": 600, "latest_delivery_minutes": 90, "window": {"start": "08:00", "end": "20:00", "time_zone": "Europe/Berlin"}},
             "auto_winner": {"after_minutes": 240, "metric": "conversions", "confidence": 99, "fallback": "none"}}
            """#
        let spec = try campaign(text)
        #expect(spec.delivery.maxPerMinute == 600 && spec.delivery.spacingSeconds(requests: 5) == 0.1)
        #expect(spec.delivery.window == SendingWindow(start: LocalTime("08:00")!, end: LocalTime("20:00")!, timeZone: "Europe/Berlin"))
        #expect(spec.autoWinner == WinnerRule(afterMinutes: 240, metric: .conversions, confidence: 99, fallback: .none))
        #expect(CampaignSpec.parse(spec.toJSON()) == .success(spec))
    }

    @Test func badDeliveryControlsAreNamedByField() throws {
        let found = try errors(of: #"""
            {"name": "Bad", "notification": {"title": "T"}, "topics": ["news"],
             "delivery": {"max_per_minute": 0, "latest_delivery_minutes": 50000, "window": {"start": "25:00", "end": "08:00", "time_zone": "Mars/Olympus"}},
             "auto_winner": {"after_minutes": 60, "metric": "clicks", "confidence": 80}}
            """#)
        let byPath = Dictionary(found.map { ($0.path, $0.code) }, uniquingKeysWith: { first, _ in first })
        #expect(byPath["delivery.max_per_minute"] == "out_of_range")
        #expect(byPath["delivery.latest_delivery_minutes"] == "out_of_range")
        #expect(byPath["delivery.window.start"] == "invalid_time")
        #expect(byPath["delivery.window.time_zone"] == "unknown_time_zone")
        #expect(byPath["auto_winner.metric"] == "invalid_value")
        #expect(byPath["auto_winner.confidence"] == "invalid_value")
        #expect(byPath["auto_winner"] == "needs_ab_test_with_holdout")
        let both = try errors(of: #"{"name": "Bad", "notification": {"title": "T"}, "topics": ["news"], "delivery": {"max_per_minute": 10, "spread_minutes": 30}}"#)
        #expect(both.map(\.path) == ["delivery.spread_minutes"] && both.map(\.code) == ["conflict"])
        let same = try errors(of: #"{"name": "Bad", "notification": {"title": "T"}, "topics": ["news"], "delivery": {"window": {"start": "08:00", "end": "08:00", "time_zone": "UTC"}}}"#)
        #expect(same.map(\.code) == ["empty_window"])
    }

    /// "Over 30 minutes": the spacing fills the spread whatever the run's size; a run of one has none.
    @Test func aSpreadOverMinutesSpacesARunsRequestsToFillIt() throws {
        let spec = try campaign(#"{"name": "Slow", "notification": {"title": "T"}, "topics": ["news"], "delivery": {"spread_minutes": 30}}"#)
        #expect(spec.delivery.spreadMinutes == 30)
        #expect(spec.delivery.spacingSeconds(requests: 1800) == 1)
        #expect(spec.delivery.spacingSeconds(requests: 100_000) == 0.018)
        #expect(spec.delivery.spacingSeconds(requests: 1) == nil)
        #expect(CampaignSpec.parse(spec.toJSON()) == .success(spec))
        #expect(try errors(of: #"{"name": "x", "notification": {"title": "T"}, "topics": ["n"], "delivery": {"spread_minutes": 1441}}"#).map(\.code) == ["out_of_range"])
    }
}
