import Foundation
import Testing
import CometSchema
import CometStore
import CometIntents

@Suite("@nonBlank: a title must say something")
struct NonBlankTests {
    @Test("creating an event with an empty or blank title fails naming the parameter, and creates nothing",
          arguments: ["", "   ", "\t\n "])
    func blankEventTitle(title: String) throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let before = try fixture.contents()
        let outcome = fixture.run("createEvent", ["title": text(title), "startDate": try at("2026-06-20T10:00:00+02:00[Europe/Berlin]")])
        let error = try requireFailure(outcome, .invalidValue)
        #expect(error.parameter == "title")
        #expect(error.message == "a title must have something in it")
        #expect(try fixture.contents() == before)
    }

    @Test("renaming an event to spaces fails and changes nothing")
    func blankUpdate() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let event = try fixture.makeEvent("Budget review", start: "2026-06-19T10:00:00+02:00[Europe/Berlin]")
        let before = try fixture.contents()
        let error = try requireFailure(fixture.run("updateEvent", ["event": reference(event), "title": text("  ")]), .invalidValue)
        #expect(error.parameter == "title")
        #expect(try fixture.contents() == before)
    }

    @Test("a calendar's title must say something too")
    func blankCalendar() throws {
        let fixture = try TestStore()
        let error = try requireFailure(fixture.run("createCalendar", ["title": text(" ")]), .invalidValue)
        #expect(error.parameter == "title")
        #expect(try fixture.all(Fixture.calendar).isEmpty)
    }

    @Test("a title with words and spaces around them is kept as given")
    func paddedTitle() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let event = try fixture.makeEvent(" Lunch ", start: "2026-06-19T12:00:00+02:00[Europe/Berlin]")
        #expect(event["title"] == .string(" Lunch "))
    }

    @Test("the tasks domain says it in its schema, and gets the same refusal with no Swift of its own")
    func tasksDomain() throws {
        let fixture = try TestStore(registry: try Registry.load(paths: [Fixture.repoRoot + "/Examples/Schemas/tasks"]), label: "tasks")
        let error = try requireFailure(fixture.run("createTask", ["title": text("  ")]), .invalidValue)
        #expect(error.parameter == "title")
        #expect(error.message == "a title must have something in it")
    }
}

@Suite("@defaultLength: a new event with a start and no end lasts an hour")
struct DefaultLengthTests {
    @Test("a timed start without an end ends an hour later, and the reply says the end")
    func oneHour() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let result = try fixture.done("createEvent", ["title": text("Review"), "startDate": try at("2026-06-19T15:00:00+02:00[Europe/Berlin]")])
        let record = try #require(result.record)
        #expect(record["endDate"] == .dateTime(try dateTime("2026-06-19T16:00:00+02:00[Europe/Berlin]")))
        #expect(result.dialog.full == "Created “Review” for Fri Jun 19 15:00–16:00.")
    }

    @Test("an end given wins, an end cleared leaves a moment, and an all-day event lasts its day")
    func notWhenSaidOtherwise() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let given = try fixture.makeEvent("Long", start: "2026-06-19T15:00:00+02:00[Europe/Berlin]", end: "2026-06-19T18:00:00+02:00[Europe/Berlin]")
        #expect(given["endDate"] == .dateTime(try dateTime("2026-06-19T18:00:00+02:00[Europe/Berlin]")))
        let moment = try #require(try fixture.done("createEvent", [
            "title": text("Launch"), "startDate": try at("2026-06-19T15:00:00+02:00[Europe/Berlin]"), "endDate": .cleared,
        ]).record)
        #expect(moment["endDate"] == nil)
        let allDay = try #require(try fixture.done("createEvent", [
            "title": text("Holiday"), "startDate": try at("2026-06-19T00:00:00"), "isAllDay": .set(.bool(true)),
        ]).record)
        #expect(allDay["endDate"] == .dateTime(try dateTime("2026-06-20T00:00:00")))
    }

    @Test("an update does not add an end to an event that has none")
    func notOnUpdate() throws {
        let fixture = try TestStore()
        try fixture.makeCalendar()
        let moment = try #require(try fixture.done("createEvent", [
            "title": text("Launch"), "startDate": try at("2026-06-19T15:00:00+02:00[Europe/Berlin]"), "endDate": .cleared,
        ]).record)
        let moved = try #require(try fixture.done("updateEvent", ["event": reference(moment), "startDate": try at("2026-06-20T15:00:00+02:00[Europe/Berlin]")]).record)
        #expect(moved["endDate"] == nil)
    }
}
