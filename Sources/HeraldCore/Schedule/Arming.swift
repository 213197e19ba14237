import Foundation

/// When a campaign's first run is due once it is scheduled: at once without a wall-clock schedule,
/// else its next occurrence. A time already past is refused rather than sent late by surprise.
public enum Arming {
    public static func firstRun(of spec: CampaignSpec, now: Date) -> Result<Date, ValidationErrors> {
        guard let schedule = spec.schedule, schedule != .now else { return .success(now) }
        if let next = schedule.nextOccurrence(after: now) { return .success(next) }
        if schedule.isRecurring {
            return .failure(ValidationErrors(errors: [FieldError(path: "schedule.until", code: "schedule_ended",
                                       message: "the recurring schedule has no occurrence left after now")]))
        }
        return .failure(ValidationErrors(errors: [FieldError(path: "schedule.at", code: "in_the_past",
                                   message: "the schedule's time has already passed in its time zone")]))
    }

    /// The next occurrence after the one just started; nil ends the campaign's runs. Missed
    /// occurrences (an outage longer than the period) are skipped, not sent in a burst.
    public static func nextRun(of spec: CampaignSpec, after occurrence: Date, now: Date) -> Date? {
        guard let schedule = spec.schedule, schedule.isRecurring else { return nil }
        return schedule.nextOccurrence(after: max(occurrence, now))
    }
}
