import Foundation
import CometSchema
import CometText

/// The shapes of generated events, for the mix report and per-kind breakdowns.
enum EventKind: String, CaseIterable {
    case timed, allDay = "all-day"
    case weekly, weeklyDays = "weekly-byday", biweekly, weekdays, dailyCount = "daily-count"
    case monthlyDay = "monthly-bymonthday", monthlyWeekday = "monthly-2tu", yearly

    var isRecurring: Bool { self != .timed && self != .allDay }
}

/// One generated createEvent request.
struct GeneratedEvent {
    let parameters: ParameterBindings
    let kind: EventKind
    /// How the series ends: "never", "count", "until" (nil for single events).
    let ending: String?
}

/// Deterministic calendar data: the same seed gives the same events (titles, times, zones,
/// rules, people) on every run. Only the ids differ: the engine makes those.
///
/// The mix, per event: zone Europe/Berlin 45% / America/New_York 30% / UTC 25%; 8% of single
/// events all-day; durations 15 min–3 h (mostly 30 and 60 min); 30% with a location (a third of
/// them a Place with coordinates); 20% with 1–5 attendees; 30% with an alarm; 70% with a note of
/// 3–10 words; 15% with a status. Repeating events (`recurringPercent`): weekly, weekly on two
/// days, every other week, weekdays, daily with COUNT, monthly on a day, monthly on the 2nd
/// Tuesday, yearly (mostly all-day); each unbounded, with COUNT or with UNTIL in thirds (daily
/// always with COUNT).
struct EventGenerator {
    let frame: TimeFrame
    let calendars: [UUID]
    let recurringPercent: Int
    private var random: SplitMix64

    init(frame: TimeFrame, calendars: [UUID], recurringPercent: Int, random: SplitMix64) {
        self.frame = frame
        self.calendars = calendars
        self.recurringPercent = recurringPercent
        self.random = random
    }

    static let titles = [
        "Standup", "Team sync", "1:1 with Ada", "Design review", "Sprint planning", "Dentist", "Gym",
        "Call with Grace", "Lunch with Linus", "Team lunch", "Flight to Lisbon", "Parent-teacher meeting",
        "Yoga", "Budget review", "Coffee with Margaret", "Interview: backend engineer", "Launch rehearsal",
        "Board meeting", "Piano lesson", "Haircut", "Dinner with Alan", "Code review",
        "Quarterly business review", "Car service", "Book club",
    ]
    static let allDayTitles = ["Conference", "Offsite", "Vacation", "Public holiday", "Moving day", "Hackathon"]
    static let yearlyTitles = ["Birthday: Ada", "Birthday: Grace", "Anniversary", "Tax deadline", "Birthday: Katherine"]
    static let noteWords = [
        "bring", "laptop", "agenda", "slides", "notes", "draft", "review", "budget", "numbers", "quarter",
        "roadmap", "dial-in", "parking", "badge", "snacks", "feedback", "contract", "invoice", "travel", "hotel",
        "tickets", "passport", "follow-up", "decision", "open", "questions", "metrics", "launch", "checklist",
        "demo", "prototype", "lunch", "printout", "whiteboard", "retro", "action", "items", "schedule",
    ]
    static let textLocations = [
        "Room 4.12", "Main office, 3rd floor", "Café Einstein", "Zoom", "Conference room Apollo", "Home",
        "Tempelhofer Feld", "Lab 3", "Gate B22", "Studio 2",
    ]
    static let places = [
        PlaceValue(name: "Brandenburger Tor", address: "Pariser Platz, 10117 Berlin", latitude: 52.5163, longitude: 13.3777),
        PlaceValue(name: "Flatiron Building", address: "175 5th Ave, New York, NY 10010", latitude: 40.7411, longitude: -73.9897),
        PlaceValue(name: "British Library", address: "96 Euston Rd, London NW1 2DB", latitude: 51.5300, longitude: -0.1276),
        PlaceValue(name: "Coworking Kreuzberg", address: "Oranienstraße 185, 10999 Berlin"),
    ]
    static let people = [
        ("Ada Lovelace", "ada"), ("Grace Hopper", "grace"), ("Linus Torvalds", "linus"), ("Margaret Hamilton", "margaret"),
        ("Alan Turing", "alan"), ("Katherine Johnson", "katherine"), ("Barbara Liskov", "barbara"), ("Dennis Ritchie", "dennis"),
        ("Frances Allen", "frances"), ("Edsger Dijkstra", "edsger"), ("Radia Perlman", "radia"), ("Ken Thompson", "ken"),
    ]
    static let zones = [("Europe/Berlin", 45), ("America/New_York", 30), ("UTC", 25)]
    static let durations = [(15, 10), (30, 30), (45, 10), (60, 30), (90, 10), (120, 6), (180, 4)]
    static let weekdayCodes = ["SU", "MO", "TU", "WE", "TH", "FR", "SA"]

    // MARK: Events

    mutating func next() throws -> GeneratedEvent {
        let recurring = random.int(0...99) < recurringPercent
        let kind: EventKind = recurring
            ? random.weighted([(.weekly, 15), (.weeklyDays, 10), (.biweekly, 10), (.weekdays, 15), (.dailyCount, 15),
                               (.monthlyDay, 10), (.monthlyWeekday, 10), (.yearly, 15)])
            : (random.chance(0.08) ? .allDay : .timed)
        var day = Int64(random.int(Int(frame.firstDay)...Int(frame.lastDay)))
        var values: [String: ParameterValue] = [:]
        var ending: String?

        // Align the start with the rule, as calendar apps do (RFC 5545 counts DTSTART anyway).
        switch kind {
        case .weekdays:
            let weekday = EventGenerator.weekday(day)
            if weekday == 0 { day += 1 } else if weekday == 6 { day += 2 }
        case .monthlyDay:
            let date = TimeFrame.date(day: day)
            if date.day > 28 { day -= Int64(date.day - 28) }
        case .monthlyWeekday:
            day = EventGenerator.secondTuesday(of: TimeFrame.date(day: day))
        default:
            break
        }
        let date = TimeFrame.date(day: day)
        let allDay = kind == .allDay || (kind == .yearly && random.chance(0.7))

        // Title.
        switch kind {
        case .allDay: values["title"] = .set(.string(random.pick(EventGenerator.allDayTitles)))
        case .yearly: values["title"] = .set(.string(random.pick(EventGenerator.yearlyTitles)))
        default: values["title"] = .set(.string(random.pick(EventGenerator.titles)))
        }

        // Times.
        let start: DateTimeValue
        if allDay {
            guard let midnight = LocalDateTime(date: date, hour: 0, minute: 0) else { throw BenchError("bad date \(date)") }
            start = .floating(midnight)
            values["isAllDay"] = .set(.bool(true))
            let days = kind == .allDay ? random.weighted([(1, 70), (2, 15), (3, 15)]) : 1
            values["endDate"] = .set(.dateTime(start.adding(days: days)))
        } else {
            guard let local = LocalDateTime(date: date, hour: random.int(7...19), minute: 15 * random.int(0...3)) else {
                throw BenchError("bad time on \(date)")
            }
            let zone = random.weighted(EventGenerator.zones)
            start = zone == "UTC" ? DateTimeValue(kind: .utc(epochSeconds: local.wallSeconds)) : try DateTimeValue.zoned(local, timeZone: zone)
            values["endDate"] = .set(.dateTime(start.adding(seconds: Int64(60 * random.weighted(EventGenerator.durations)))))
        }
        values["startDate"] = .set(.dateTime(start))

        // Recurrence.
        if kind.isRecurring {
            let weekday = EventGenerator.weekdayCodes[EventGenerator.weekday(day)]
            var counts = 4...26
            var rule = ""
            switch kind {
            case .weekly: rule = "FREQ=WEEKLY"
            case .weeklyDays:
                let other = (EventGenerator.weekday(day) + random.int(1...3) * 2) % 7
                let days = Set([EventGenerator.weekday(day), other])
                // Week order, Monday first.
                rule = "FREQ=WEEKLY;BYDAY=" + [1, 2, 3, 4, 5, 6, 0].filter(days.contains).map { EventGenerator.weekdayCodes[$0] }.joined(separator: ",")
            case .biweekly: rule = "FREQ=WEEKLY;INTERVAL=2;BYDAY=\(weekday)"
            case .weekdays:
                rule = "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR"
                counts = 5...60
            case .dailyCount:
                rule = "FREQ=DAILY"
                counts = 3...30
            case .monthlyDay:
                rule = "FREQ=MONTHLY;BYMONTHDAY=\(date.day)"
                counts = 3...24
            case .monthlyWeekday:
                rule = "FREQ=MONTHLY;BYDAY=2TU"
                counts = 3...24
            case .yearly:
                rule = "FREQ=YEARLY"
                counts = 2...10
            case .timed, .allDay:
                break
            }
            let end = kind == .dailyCount ? "count" : random.pick(["never", "count", "until"])
            ending = end
            if end == "count" {
                rule += ";COUNT=\(random.int(counts))"
            } else if end == "until" {
                let untilDay = day + Int64(random.int(30...400))
                if allDay {
                    rule += ";UNTIL=\(TimeFrame.date(day: untilDay).icalText)"
                } else {
                    let instant = start.sortKey + (untilDay - day) * 86_400
                    rule += ";UNTIL=\(LocalDateTime(wallSeconds: instant).icalText)Z"
                }
            }
            values["recurrence"] = .set(.recurrence(try RecurrenceRule(parsing: rule)))
        }

        values["calendar"] = .set(.reference(random.weighted([(calendars[0], 60), (calendars[1], 30), (calendars[2], 10)])))
        if random.chance(0.30) { values["location"] = .set(randomLocation()) }
        if random.chance(0.20) {
            values["attendees"] = .set(.array((0..<random.int(1...5)).map { _ in randomAttendee() }))
        }
        if random.chance(0.30) {
            let minutes = random.weighted([(10, 30), (15, 30), (30, 20), (60, 15), (1_440, 5)])
            var alarms: [Value] = [.union("relative", .duration(DurationValue(isNegative: true, minutes: minutes)))]
            if random.chance(0.1) { alarms.append(.union("relative", .duration(DurationValue(isNegative: true, days: 1)))) }
            values["alarms"] = .set(.array(alarms))
        }
        if random.chance(0.70) {
            values["note"] = .set(.string((0..<random.int(3...10)).map { _ in random.pick(EventGenerator.noteWords) }.joined(separator: " ")))
        }
        if random.chance(0.15) { values["status"] = .set(.enumCase(random.pick(["confirmed", "tentative"]))) }
        return GeneratedEvent(parameters: ParameterBindings(values), kind: kind, ending: ending)
    }

    /// New values for an update: a new title and a new location.
    mutating func changes() -> [String: ParameterValue] {
        [
            "title": .set(.string(random.pick(EventGenerator.titles) + " (moved)")),
            "location": .set(randomLocation()),
        ]
    }

    private mutating func randomLocation() -> Value {
        if random.chance(1.0 / 3.0) { return .union("place", .place(random.pick(EventGenerator.places))) }
        return .union("text", .string(random.pick(EventGenerator.textLocations)))
    }

    private mutating func randomAttendee() -> Value {
        let (name, handle) = random.pick(EventGenerator.people)
        return .object([
            "person": .person(PersonValue(name: name, email: "\(handle)@example.org")),
            "isOptional": .bool(random.chance(0.2)),
            "status": .enumCase(random.weighted([("accepted", 50), ("needsAction", 30), ("tentative", 10), ("declined", 10)])),
            "type": .enumCase("person"),
        ])
    }

    // MARK: Calendar arithmetic

    /// 0 = Sunday … 6 = Saturday (1970-01-01 was a Thursday).
    static func weekday(_ day: Int64) -> Int {
        Int(((day + 4) % 7 + 7) % 7)
    }

    static func secondTuesday(of date: CalendarDate) -> Int64 {
        guard let first = CalendarDate(year: date.year, month: date.month, day: 1) else { return date.dayNumber }
        let firstDay = first.dayNumber
        let firstTuesday = firstDay + Int64((2 - weekday(firstDay) + 7) % 7)
        return firstTuesday + 7
    }
}
