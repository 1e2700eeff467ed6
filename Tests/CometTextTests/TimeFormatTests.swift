import Testing
import CometText

@Suite("Time format")
struct TimeFormatTests {
    /// Saturday, June 13, 2026 at 13:05.
    let afternoon = TimeFormat.Moment(year: 2026, month: 6, day: 13, weekdayIndex: 6, hour: 13, minute: 5)

    @Test("the default writes 24-hour times, as the agenda always has")
    func twentyFourHour() {
        #expect(TimeFormat.twentyFourHour.text(afternoon) == "13:05")
        #expect(TimeFormat.twentyFourHour.text(TimeFormat.Moment(year: 2026, month: 6, day: 13, weekdayIndex: 6, hour: 8, minute: 0)) == "08:00")
    }

    @Test("%-I:%M %p writes 12-hour times; midnight is 12 AM and noon 12 PM")
    func twelveHour() {
        let format = TimeFormat("%-I:%M %p")
        #expect(format.text(afternoon) == "1:05 PM")
        #expect(format.text(TimeFormat.Moment(year: 2026, month: 6, day: 13, weekdayIndex: 6, hour: 0, minute: 30)) == "12:30 AM")
        #expect(format.text(TimeFormat.Moment(year: 2026, month: 6, day: 13, weekdayIndex: 6, hour: 12, minute: 0)) == "12:00 PM")
        #expect(TimeFormat("%I:%M%p").text(TimeFormat.Moment(year: 2026, month: 6, day: 13, weekdayIndex: 6, hour: 9, minute: 7)) == "09:07AM")
    }

    @Test("date directives read the moment's day, as date_format uses them")
    func dateDirectives() {
        #expect(TimeFormat("%A, %B %-d, %Y").text(afternoon) == "Saturday, June 13, 2026")
        #expect(TimeFormat("%a %d.%m.%y %e|%b %%").text(afternoon) == "Sat 13.06.26 13|Jun %")
    }

    @Test("an unknown directive is named, so the config can refuse it")
    func unknownDirective() {
        #expect(TimeFormat.unknownDirective(in: "%H:%M") == nil)
        #expect(TimeFormat.unknownDirective(in: "%-I:%M %p") == nil)
        #expect(TimeFormat.unknownDirective(in: "%H:%Q") == "Q")
        #expect(TimeFormat.unknownDirective(in: "%H %") == "")
    }
}
