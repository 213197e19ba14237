import Foundation

/// When a campaign's first run is due once it is scheduled: at once without a wall-clock schedule,
/// else its next occurrence. A time already past is refused rather than sent late by surprise.
public enum Arming {
    public static func firstRun(of spec: CampaignSpec, now: Date) -> Result<Date, ValidationErrors> {
        guard var schedule = spec.schedule, schedule != .now else { return .success(now) }
        if spec.delivery.recipientTime != nil {
            // A run starts with its first wave anywhere; a one-off whose first waves have passed
            // still starts now while some zone has its time ahead (the past policy says what the others get).
            if let next = RecipientTime.firstWaves(of: schedule).nextOccurrence(after: now) { return .success(next) }
            if let last = RecipientTime.lastWave(of: schedule), last > now { return .success(now) }
            if case .once(let at, _) = schedule {
                return .failure(ValidationErrors(errors: [FieldError(path: "schedule.at", code: "in_the_past",
                    message: "\(Self.readable(at)) has already passed in every time zone; choose a later time")]))
            }
            schedule = RecipientTime.firstWaves(of: schedule)
        }
        if let next = schedule.nextOccurrence(after: now) { return .success(next) }
        if schedule.isRecurring {
            return .failure(ValidationErrors(errors: [FieldError(path: "schedule.until", code: "schedule_ended",
                                       message: "the recurring schedule has no occurrence left after now")]))
        }
        var message = "this time has already passed in its time zone; choose a later time, or send now"
        if case .once(let at, let identifier) = schedule, let zone = TimeZone(identifier: identifier) {
            let local = WallClock.local(at: now, in: zone)
            message = "\(Self.readable(at)) has already passed in \(identifier) (it is \(Self.readable(local)) there now); choose a later time, or send now"
        }
        return .failure(ValidationErrors(errors: [FieldError(path: "schedule.at", code: "in_the_past", message: message)]))
    }

    /// The rule every save applies (create, replace, patch; the API and the composer alike): a
    /// schedule with no time left to send at is refused when it is written, not first when someone
    /// presses Schedule. Nil when the campaign has no schedule or its schedule has a time ahead.
    public static func unsavableSchedule(of spec: CampaignSpec, now: Date) -> ValidationErrors? {
        guard spec.schedule != nil, case .failure(let errors) = firstRun(of: spec, now: now) else { return nil }
        return errors
    }

    /// "2026-12-01 09:00", as the composer shows local times (minutes only, as marketers pick them).
    static func readable(_ local: LocalDateTime) -> String {
        "\(local.date) \(Int.padded(local.time.hour, 2)):\(Int.padded(local.time.minute, 2))"
    }

    /// The next occurrence after the one just started; nil ends the campaign's runs. Missed
    /// occurrences (an outage longer than the period) are skipped, not sent in a burst.
    public static func nextRun(of spec: CampaignSpec, after occurrence: Date, now: Date) -> Date? {
        guard let schedule = spec.schedule, schedule.isRecurring else { return nil }
        let followed = spec.delivery.recipientTime == nil ? schedule : RecipientTime.firstWaves(of: schedule)
        return followed.nextOccurrence(after: max(occurrence, now))
    }
}
