import Foundation
import CometSchema
import CometText

/// Writes a realistic iCalendar file, the same bytes for the same seed and size, as a calendar
/// app's export looks: VTIMEZONE blocks for the zones it uses, DTSTAMP/CREATED/LAST-MODIFIED
/// and SEQUENCE on every event, folded lines, escaped text.
///
/// The mix, per VEVENT (`events` counts them all, overrides included): 10% are series (weekly
/// on one day 40%, weekdays 15%, weekly on two days 15%, daily with COUNT 10%, monthly on a
/// day 10%, monthly on the 2nd Tuesday 5%, yearly 5%; unbounded, COUNT or UNTIL in thirds),
/// 40% of weekly and daily series with 1–3 EXDATEs on real instances and 30% of series with
/// an override (a VEVENT with the same UID and a RECURRENCE-ID, an hour later); 20% have an
/// organizer and 1–6 attendees; 20% a VALARM; 60% a DESCRIPTION; 35% a LOCATION. Times: 50%
/// Europe/Berlin, 25% America/New_York, 15% UTC, 4% floating, 6% all-day; a few events start in
/// Berlin's spring-forward gap (02:30 on the last Sunday of March), which exists on no clock.
struct CalendarFileGenerator {
    let frame: TimeFrame
    let events: Int
    private var random: SplitMix64

    init(frame: TimeFrame, events: Int, seed: UInt64) {
        self.frame = frame
        self.events = events
        random = SplitMix64(seed: seed, stream: "calendar-file-\(events)")
    }

    /// What the file holds, for the report.
    struct Summary {
        var bytes = 0
        var events = 0
        var series = 0
        var overrides = 0
        var withAttendees = 0
        var withAlarms = 0
    }

    /// Writes the file at `path` and says what is in it.
    mutating func write(to path: String) throws -> Summary {
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw BenchError("cannot write \(path)")
        }
        defer { try? handle.close() }
        var summary = Summary()
        var buffer = CalendarFileGenerator.header
        var written = 0
        while written < events {
            let master = nextEvent(index: written)
            buffer += master.text
            written += 1
            summary.events += 1
            if master.isSeries { summary.series += 1 }
            if master.hasAttendees { summary.withAttendees += 1 }
            if master.hasAlarm { summary.withAlarms += 1 }
            if let override = master.override, written < events {
                buffer += override
                written += 1
                summary.events += 1
                summary.overrides += 1
            }
            if buffer.utf8.count > 1 << 20 {
                summary.bytes += buffer.utf8.count
                try handle.write(contentsOf: Data(buffer.utf8))
                buffer = ""
            }
        }
        buffer += "END:VCALENDAR\r\n"
        summary.bytes += buffer.utf8.count
        try handle.write(contentsOf: Data(buffer.utf8))
        return summary
    }

    private struct Written {
        var text: String
        var isSeries = false
        var hasAttendees = false
        var hasAlarm = false
        var override: String?
    }

    private enum Clock { case berlin, newYork, utc, floating, allDay }
    private enum Rule: CaseIterable { case weekly, weekdays, weeklyTwoDays, daily, monthlyDay, monthlySecondTuesday, yearly }

    private static let titles = [
        "Standup", "Team sync", "1:1 with Ada", "Design review", "Sprint planning", "Dentist", "Gym", "Call with Grace",
        "Lunch with Linus", "Team lunch", "Flight to Lisbon", "Parent-teacher meeting", "Yoga", "Budget review",
        "Coffee with Margaret", "Interview: backend engineer", "Launch rehearsal", "Board meeting", "Piano lesson",
        "Haircut", "Dinner with Alan", "Code review", "Quarterly business review", "Car service", "Book club",
    ]
    private static let words = [
        "bring", "laptop", "agenda", "slides", "notes", "draft", "review", "budget", "numbers", "quarter", "roadmap",
        "dial-in", "parking", "badge", "snacks", "feedback", "contract", "invoice", "travel", "hotel", "tickets",
        "passport", "follow-up", "decision", "open", "questions", "metrics", "launch", "checklist", "demo", "lunch",
    ]
    private static let locations = [
        "Room 4.12", "Main office\\, 3rd floor", "Café Einstein", "https://meet.example.com/abc-defg-hij",
        "Conference room Apollo", "Home", "Alexanderplatz 1\\, 10178 Berlin", "350 5th Ave\\, New York\\, NY 10118",
    ]
    private static let people = ["ada", "grace", "linus", "margaret", "alan", "katherine", "barbara", "edsger", "donald", "frances"]
    private static let weekdays = ["SU", "MO", "TU", "WE", "TH", "FR", "SA"]

    private mutating func nextEvent(index: Int) -> Written {
        let uid = String(format: "%08x-%04x-bench@cometcal.example", index, Int(random.next() & 0xffff))
        let clock = random.weighted([(Clock.berlin, 50), (.newYork, 25), (.utc, 15), (.floating, 4), (.allDay, 6)])
        var day = Int64(random.int(Int(frame.firstDay)...Int(frame.lastDay)))
        var minute = random.weighted([(8, 5), (9, 15), (10, 15), (11, 10), (12, 10), (13, 10), (14, 10), (15, 10), (16, 8), (17, 5), (19, 2)]) * 60
            + random.pick([0, 0, 0, 15, 30, 30, 45])
        if clock == .berlin, random.chance(0.002), let gap = CalendarFileGenerator.springForwardSunday(year: TimeFrame.date(day: day).year) {
            day = gap
            minute = 150
        }
        let duration = clock == .allDay ? 1_440 * random.weighted([(1, 8), (2, 1), (3, 1)]) : random.weighted([(15, 1), (30, 4), (45, 1), (60, 4), (90, 1), (120, 1), (180, 1)])
        let title = random.pick(CalendarFileGenerator.titles)
        var written = Written(text: "")
        var lines = ["BEGIN:VEVENT", "UID:\(uid)", "DTSTAMP:20260601T090000Z"]
        let created = day - Int64(random.int(1...120))
        lines.append("CREATED:\(CalendarFileGenerator.stamp(day: created, minute: 600))")
        lines.append("LAST-MODIFIED:\(CalendarFileGenerator.stamp(day: created + 1, minute: 615))")
        lines.append(contentsOf: times(clock, day: day, minute: minute, duration: duration))
        lines.append("SUMMARY:\(title)")
        lines.append("SEQUENCE:\(random.weighted([(0, 6), (1, 2), (2, 1)]))")
        if random.chance(0.6) {
            let count = random.int(4...30)
            lines.append("DESCRIPTION:" + (0..<count).map { _ in random.pick(CalendarFileGenerator.words) }.joined(separator: " ").capitalizedFirst + ".")
        }
        if random.chance(0.35) { lines.append("LOCATION:\(random.pick(CalendarFileGenerator.locations))") }
        if random.chance(0.15) { lines.append("STATUS:\(random.weighted([("TENTATIVE", 2), ("CONFIRMED", 3), ("CANCELLED", 1)]))") }
        if random.chance(0.2) {
            written.hasAttendees = true
            let organizer = random.pick(CalendarFileGenerator.people)
            lines.append("ORGANIZER;CN=\(organizer.capitalizedFirst):mailto:\(organizer)@example.com")
            for person in Set((0..<random.int(1...6)).map { _ in random.pick(CalendarFileGenerator.people) }).sorted() where person != organizer {
                let state = random.weighted([("ACCEPTED", 5), ("NEEDS-ACTION", 3), ("TENTATIVE", 1), ("DECLINED", 1)])
                lines.append("ATTENDEE;CUTYPE=INDIVIDUAL;ROLE=REQ-PARTICIPANT;PARTSTAT=\(state);RSVP=TRUE;CN=\(person.capitalizedFirst) Example:mailto:\(person)@example.com")
            }
        }
        var rule: Rule?
        if random.chance(0.1), clock != .floating {
            rule = clock == .allDay ? .yearly : random.weighted([(Rule.weekly, 40), (.weekdays, 15), (.weeklyTwoDays, 15), (.daily, 10), (.monthlyDay, 10), (.monthlySecondTuesday, 5), (.yearly, 5)])
        }
        if let rule {
            written.isSeries = true
            lines.append(contentsOf: recurrence(rule, clock: clock, day: day, minute: minute))
        }
        if random.chance(0.2) {
            written.hasAlarm = true
            let before = random.pick([5, 10, 15, 30, 60, 1_440])
            lines += ["BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:\(title)", "TRIGGER:-PT\(before)M", "END:VALARM"]
        }
        lines.append("END:VEVENT")
        written.text = CalendarFileGenerator.folded(lines)
        if let rule, random.chance(0.3), let step = CalendarFileGenerator.secondInstance(rule, weekday: TimeFrame.date(day: day).weekdayIndex,
                                                                                  everyOtherWeek: lines.contains { $0.contains("INTERVAL=2") }) {
            // The second instance, moved an hour later and renamed.
            var override = ["BEGIN:VEVENT", "UID:\(uid)", "DTSTAMP:20260601T090000Z"]
            override += times(clock, day: day + step, minute: minute, duration: duration, property: "RECURRENCE-ID")
            override += times(clock, day: day + step, minute: minute + 60, duration: duration)
            override += ["SUMMARY:\(title) (moved)", "SEQUENCE:1", "END:VEVENT"]
            written.override = CalendarFileGenerator.folded(override)
        }
        return written
    }

    /// Days from the first instance to the second, for the rules where that is simple.
    private static func secondInstance(_ rule: Rule, weekday: Int, everyOtherWeek: Bool) -> Int64? {
        switch rule {
        case .daily: return 1
        case .weekly: return everyOtherWeek ? 14 : 7
        case .weeklyTwoDays: return 2
        case .weekdays: return (1...4).contains(weekday) ? 1 : weekday == 5 ? 3 : nil
        case .monthlyDay, .monthlySecondTuesday, .yearly: return nil
        }
    }

    /// DTSTART and DTEND (or, for `property`, that one line alone) in the event's clock.
    private func times(_ clock: Clock, day: Int64, minute: Int, duration: Int, property: String? = nil) -> [String] {
        func at(_ minutes: Int) -> String { CalendarFileGenerator.local(day: day + Int64(minutes / 1_440), minute: minutes % 1_440) }
        let parameters: String
        var suffix = ""
        switch clock {
        case .berlin: parameters = ";TZID=Europe/Berlin"
        case .newYork: parameters = ";TZID=America/New_York"
        case .utc: parameters = ""; suffix = "Z"
        case .floating: parameters = ""
        case .allDay:
            let first = CalendarFileGenerator.dateText(day: day)
            if let property { return ["\(property);VALUE=DATE:\(first)"] }
            return ["DTSTART;VALUE=DATE:\(first)", "DTEND;VALUE=DATE:\(CalendarFileGenerator.dateText(day: day + Int64(duration / 1_440)))"]
        }
        if let property { return ["\(property)\(parameters):\(at(minute))\(suffix)"] }
        return ["DTSTART\(parameters):\(at(minute))\(suffix)", "DTEND\(parameters):\(at(minute + duration))\(suffix)"]
    }

    private mutating func recurrence(_ rule: Rule, clock: Clock, day: Int64, minute: Int) -> [String] {
        let weekday = CalendarFileGenerator.weekdays[TimeFrame.date(day: day).weekdayIndex]
        var text: String
        switch rule {
        case .weekly: text = "FREQ=WEEKLY;BYDAY=\(weekday)"
        case .weekdays: text = "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR"
        case .weeklyTwoDays:
            let other = CalendarFileGenerator.weekdays[(TimeFrame.date(day: day).weekdayIndex + 2) % 7]
            text = "FREQ=WEEKLY;BYDAY=\([weekday, other].joined(separator: ","))"
        case .daily: text = "FREQ=DAILY"
        case .monthlyDay: text = "FREQ=MONTHLY;BYMONTHDAY=\(TimeFrame.date(day: day).day)"
        case .monthlySecondTuesday: text = "FREQ=MONTHLY;BYDAY=2TU"
        case .yearly: text = "FREQ=YEARLY"
        }
        if rule == .weekly, random.chance(0.2) { text += ";INTERVAL=2" }
        if rule == .daily {
            text += ";COUNT=\(random.int(5...60))"
        } else {
            switch random.int(0...2) {
            case 0: break
            case 1: text += ";COUNT=\(random.int(4...80))"
            default:
                let until = day + Int64(random.int(60...500))
                text += clock == .allDay ? ";UNTIL=\(CalendarFileGenerator.dateText(day: until))" : ";UNTIL=\(CalendarFileGenerator.dateText(day: until))T235959Z"
            }
        }
        var lines = ["RRULE:\(text)"]
        if (rule == .weekly && !text.contains("INTERVAL")) || rule == .daily, random.chance(0.4) {
            let step: Int64 = rule == .daily ? 1 : 7
            let skipped = Set((0..<random.int(1...3)).map { _ in Int64(random.int(2...4)) * step }).sorted()
            for offset in skipped {
                lines += times(clock, day: day + offset, minute: minute, duration: 0, property: "EXDATE")
            }
        }
        return lines
    }

    private static let header = folded([
        "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//CometCal//cometcal-bench generator//EN", "CALSCALE:GREGORIAN",
        "X-WR-CALNAME:Benchmark", "X-WR-TIMEZONE:Europe/Berlin",
        "BEGIN:VTIMEZONE", "TZID:Europe/Berlin", "X-LIC-LOCATION:Europe/Berlin",
        "BEGIN:DAYLIGHT", "TZOFFSETFROM:+0100", "TZOFFSETTO:+0200", "TZNAME:CEST", "DTSTART:19700329T020000",
        "RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU", "END:DAYLIGHT",
        "BEGIN:STANDARD", "TZOFFSETFROM:+0200", "TZOFFSETTO:+0100", "TZNAME:CET", "DTSTART:19701025T030000",
        "RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU", "END:STANDARD", "END:VTIMEZONE",
        "BEGIN:VTIMEZONE", "TZID:America/New_York", "X-LIC-LOCATION:America/New_York",
        "BEGIN:DAYLIGHT", "TZOFFSETFROM:-0500", "TZOFFSETTO:-0400", "TZNAME:EDT", "DTSTART:19700308T020000",
        "RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU", "END:DAYLIGHT",
        "BEGIN:STANDARD", "TZOFFSETFROM:-0400", "TZOFFSETTO:-0500", "TZNAME:EST", "DTSTART:19701101T020000",
        "RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU", "END:STANDARD", "END:VTIMEZONE",
    ])

    /// Content lines folded at 75 octets (never inside a UTF-8 sequence), CRLF-terminated.
    static func folded(_ lines: [String]) -> String {
        var text = ""
        for line in lines {
            var width = 0
            var first = true
            for character in line {
                let size = character.utf8.count
                if width + size > (first ? 75 : 74) {
                    text += "\r\n "
                    width = 0
                    first = false
                }
                text.append(character)
                width += size
            }
            text += "\r\n"
        }
        return text
    }

    private static func dateText(day: Int64) -> String {
        let date = TimeFrame.date(day: day)
        return pad(date.year, 4) + pad(date.month, 2) + pad(date.day, 2)
    }

    private static func local(day: Int64, minute: Int) -> String {
        dateText(day: day) + "T" + pad(minute / 60, 2) + pad(minute % 60, 2) + "00"
    }

    private static func stamp(day: Int64, minute: Int) -> String { local(day: day, minute: minute) + "Z" }

    private static func pad(_ number: Int, _ width: Int) -> String {
        let digits = String(number)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    /// The last Sunday of March of `year`, when Berlin's clocks skip 02:00–03:00.
    private static func springForwardSunday(year: Int) -> Int64? {
        guard let last = CalendarDate(year: year, month: 3, day: 31) else { return nil }
        return last.dayNumber - Int64(last.weekdayIndex)
    }
}

private extension String {
    var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
