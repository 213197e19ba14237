import HeraldCalendar
import Testing

@Suite struct CivilCalendarTests {
    @Test(arguments: [
        (1970, 1, 1, 0), (1969, 12, 31, -1), (2000, 2, 29, 11_016), (2000, 3, 1, 11_017),
        (1900, 3, 1, -25_508), (2026, 3, 29, 20_541), (1, 1, 1, -719_162), (0, 12, 31, -719_163),
    ])
    func knownDates(year: Int, month: Int, day: Int, days: Int) {
        #expect(CivilCalendar.days(year: year, month: month, day: day) == days)
        #expect(CivilCalendar.date(days: days) == (year, month, day))
    }

    @Test func everyDayOfFourCenturiesRoundTrips() {
        var expected = (year: 1899, month: 12, day: 31)
        for days in CivilCalendar.days(year: 1900, month: 1, day: 1)...CivilCalendar.days(year: 2300, month: 1, day: 1) {
            let date = CivilCalendar.date(days: days)
            #expect(CivilCalendar.days(year: date.year, month: date.month, day: date.day) == days)
            // Consecutive day numbers are consecutive dates: the day, else the month, else the year moves on.
            let next = date.day == expected.day + 1 && date.month == expected.month && date.year == expected.year
                || date.day == 1 && (date.month == expected.month + 1 && date.year == expected.year
                    || date.month == 1 && expected.month == 12 && date.year == expected.year + 1)
            #expect(next, "\(date) after \(expected)")
            expected = date
        }
    }
}
