import Foundation
import HeraldCore
import Testing
@testable import HeraldWeb

/// The composer's delivery controls and automatic winner: fields to contract and back, and each
/// error beside its own field.
@Suite struct ComposerDeliveryTests {
    @Test func deliveryFieldsBecomeTheContractAndRenderBackUnchanged() throws {
        let form = CampaignForm(fields: CampaignFormTests.fields([
            ("max_per_minute", "1200"), ("latest_delivery_minutes", "45"), ("window_start", "08:00"), ("window_end", "20:00"),
            ("winner_after_minutes", "240"), ("winner_metric", "conversions"), ("winner_confidence", "99"), ("winner_fallback", "none"),
        ]))
        let spec = try form.parse(words: words).get()
        #expect(spec.delivery.maxPerMinute == 1200 && spec.delivery.latestDeliveryMinutes == 45)
        // No zone typed: the schedule's.
        #expect(spec.delivery.window == SendingWindow(start: LocalTime("08:00")!, end: LocalTime("20:00")!, timeZone: "Asia/Tehran"))
        #expect(spec.autoWinner == WinnerRule(afterMinutes: 240, metric: .conversions, confidence: 99, fallback: .none))
        let again = CampaignForm(spec: spec, version: 1)
        #expect(again.delivery == DeliveryFormFields(spec))
        #expect(try again.parse(words: words).get() == spec)
        let view = ComposerFields(again, words: words)
        #expect(view.deliveryOpen)
        #expect(view.winnerConfidences.first { $0.selected }?.value == "99")
    }

    @Test func eachDeliveryErrorStandsBesideItsField() {
        let form = CampaignForm(fields: CampaignFormTests.fields([
            ("max_per_minute", "lots"), ("latest_delivery_minutes", "0"), ("window_start", "8 am"), ("window_end", "20:00"),
            ("window_time_zone", "Moon/Base"), ("winner_after_minutes", "60"), ("holdout_percent", ""),
        ]))
        guard case .failure(let errors) = form.parse(words: words) else { Issue.record("expected errors"); return }
        #expect(errors["max_per_minute"] == ["must be a whole number, such as 30"])
        #expect(errors["latest_delivery_minutes"].first?.contains("1 to 40320") == true)
        #expect(errors["window_start"].first?.contains("8 am") == true)
        #expect(errors["window_time_zone"].first?.contains("Moon/Base") == true)
        #expect(errors["winner_after_minutes"].first?.contains("holdout") == true)  // an automatic winner needs a holdout

        let both = CampaignForm(fields: CampaignFormTests.fields([("max_per_minute", "100"), ("spread_minutes", "30")]))
        guard case .failure(let conflict) = both.parse(words: words) else { Issue.record("two spreads were accepted"); return }
        #expect(conflict["spread_minutes"].first?.contains("choose one") == true)
        #expect(ComposerFields(both, conflict, words: words).delivery.spreadMinutes == "30")
    }

    /// Recipient time's zones for topics: typed with commas or spaces, kept in order, and a wrong
    /// zone or zones for devices refused beside the field, the text kept as typed.
    @Test func recipientTimeZonesForTopicsRoundTripAndTheirErrorsStandBesideThem() throws {
        let form = CampaignForm(fields: CampaignFormTests.fields([("recipient_time", "skip"), ("recipient_time_zones", "Asia/Tehran, Europe/Berlin  America/New_York")]))
        let spec = try form.parse(words: words).get()
        #expect(spec.delivery.recipientTime == RecipientTime(past: .skip, timeZones: ["Asia/Tehran", "Europe/Berlin", "America/New_York"]))
        let again = CampaignForm(spec: spec, version: 1)
        #expect(again.delivery.recipientTimeZones == "Asia/Tehran, Europe/Berlin, America/New_York")
        #expect(try again.parse(words: words).get() == spec)

        let wrong = CampaignForm(fields: CampaignFormTests.fields([("recipient_time", "skip"), ("recipient_time_zones", "Asia/Tehran, Moon/Base")]))
        guard case .failure(let errors) = wrong.parse(words: words) else { Issue.record("an unknown zone was accepted"); return }
        #expect(errors["recipient_time_zones"].first?.contains("Moon/Base") == true, "\(errors)")
        #expect(ComposerFields(wrong, errors, words: words).delivery.recipientTimeZones == "Asia/Tehran, Moon/Base")

        let devices = CampaignForm(fields: CampaignFormTests.fields([("target_kind", "tokens"), ("tokens", String(repeating: "k", count: 150)),
                                                                    ("recipient_time", "skip"), ("recipient_time_zones", "Asia/Tehran")]))
        guard case .failure(let refused) = devices.parse(words: words) else { Issue.record("zones for devices were accepted"); return }
        #expect(refused["recipient_time_zones"].first?.contains("each device") == true, "\(refused)")
    }

    @Test func recipientTimeIsAChoiceThatRoundTripsAndItsErrorStandsBesideIt() throws {
        let token = String(repeating: "k", count: 150)
        let form = CampaignForm(fields: CampaignFormTests.fields([("target_kind", "tokens"), ("tokens", token), ("recipient_time", "send")]))
        let spec = try form.parse(words: words).get()
        #expect(spec.delivery.recipientTime == RecipientTime(past: .send))
        let again = CampaignForm(spec: spec, version: 1)
        #expect(try again.parse(words: words).get() == spec)
        let view = ComposerFields(again, words: words)
        #expect(view.deliveryOpen)
        #expect(view.recipientTimes.first { $0.selected }?.value == "send")

        // "Send now" has no local time to read in each zone: the error stands beside the choice, the form keeps it.
        let now = CampaignForm(fields: CampaignFormTests.fields([("schedule_kind", "now"), ("recipient_time", "skip")]))
        guard case .failure(let errors) = now.parse(words: words) else { Issue.record("recipient time without a local time was accepted"); return }
        #expect(errors["recipient_time"].first?.contains("schedule at a local time") == true)
        #expect(ComposerFields(now, errors, words: words).recipientTimes.first { $0.selected }?.value == "skip")
    }
}
