import Foundation
import CometSchema
import CometStore
import CometIntents
import CometText

/// The calendar scenarios: intents through the engine on the seeded store (and one query
/// straight on the store, to tell the engine's share from the store's).
enum CalendarScenarios {
    static let all: [Scenario] = [create, update, delete, agendaMonth, agendaMonthStore, search]

    static let create = Scenario(
        name: "create", summary: "createEvent (confirmed) of a new generated event, same mix as the seed",
        referenceName: "sqlite-insert", targetP50: 0.5, targetP99: 5
    ) { run in
        let fixture = try run.fixture()
        return { measurement in
            let event = try fixture.generator.next()
            let request = IntentRequest(intent: "createEvent", parameters: event.parameters, confirmation: .confirmed)
            let (result, timing) = try Stopwatch.time { try fixture.perform(request) }
            guard let id = result.record?.id else { throw BenchError("createEvent returned no event") }
            fixture.pool.add(id, recurring: event.kind.isRecurring)
            measurement.add(timing, tag: event.kind.isRecurring ? "series" : "single")
        }
    }

    static let update = Scenario(
        name: "update", summary: "updateEvent title + location of a random event (series: span all), confirmed",
        referenceName: "sqlite-update", targetP50: 0.5, targetP99: 5
    ) { run in
        let fixture = try run.fixture()
        var random = SplitMix64(seed: run.options.seed, stream: "update")
        return { measurement in
            let recurring = random.int(0...99) < run.options.recurringPercent && !fixture.pool.series.isEmpty
            guard let id = fixture.pool.pick(recurring: recurring, using: &random) else { throw BenchError("no event left to update") }
            var parameters = fixture.generator.changes()
            parameters["event"] = .set(.reference(id))
            if recurring { parameters["span"] = .set(.enumCase("all")) }
            let request = IntentRequest(intent: "updateEvent", parameters: ParameterBindings(parameters), confirmation: .confirmed)
            let (_, timing) = try Stopwatch.time { try fixture.perform(request) }
            measurement.add(timing, tag: recurring ? "series" : "single")
        }
    }

    static let delete = Scenario(
        name: "delete", summary: "deleteEvent of a random event (series: span all), confirmed",
        referenceName: "sqlite-delete", targetP50: 0.5, targetP99: 5
    ) { run in
        let fixture = try run.fixture()
        var random = SplitMix64(seed: run.options.seed, stream: "delete")
        return { measurement in
            let recurring = random.int(0...99) < run.options.recurringPercent && !fixture.pool.series.isEmpty
            guard let id = fixture.pool.pick(recurring: recurring, using: &random) else { throw BenchError("no event left to delete") }
            var parameters: [String: ParameterValue] = ["event": .set(.reference(id))]
            if recurring { parameters["span"] = .set(.enumCase("all")) }
            let request = IntentRequest(intent: "deleteEvent", parameters: ParameterBindings(parameters), confirmation: .confirmed)
            let (_, timing) = try Stopwatch.time { try fixture.perform(request) }
            fixture.pool.remove(id, recurring: recurring)
            measurement.add(timing, tag: recurring ? "series" : "single")
        }
    }

    /// The months are the same for the engine, the store and the SQLite reference (one stream).
    static let agendaMonth = Scenario(
        name: "agenda-month", summary: "searchEvents from/to one calendar month (Europe/Berlin) at a random month of the data",
        referenceName: "sqlite-month", targetP50: 20.0, comparesRows: false
    ) { run in
        let fixture = try run.fixture()
        var months = SplitMix64(seed: run.options.seed, stream: "agenda-months")
        return { measurement in
            let bounds = try run.frame.monthBounds(months.pick(run.frame.months))
            let request = IntentRequest(intent: "searchEvents", parameters: ParameterBindings([
                "from": .set(.dateTime(bounds.from)), "to": .set(.dateTime(bounds.to)),
            ]))
            let (result, timing) = try Stopwatch.time { try fixture.perform(request) }
            measurement.add(timing, rows: result.occurrences.count, tag: run.frame.isInsideWindow(bounds) ? "inside window" : "outside window")
        }
    }

    static let agendaMonthStore = Scenario(
        name: "agenda-month-store", summary: "the same months straight from the store: transaction { occurrences(from:to:) }",
        referenceName: "sqlite-month", targetP50: nil
    ) { run in
        let fixture = try run.fixture()
        var months = SplitMix64(seed: run.options.seed, stream: "agenda-months")
        return { measurement in
            let bounds = try run.frame.monthBounds(months.pick(run.frame.months))
            guard let from = bounds.from.instant, let to = bounds.to.instant else { throw BenchError("month bounds without instants") }
            let (occurrences, timing) = try Stopwatch.time {
                try fixture.store.transaction { try $0.occurrences(fixture.event, from: from, to: to, zone: run.frame.zone, matching: []) }
            }
            measurement.add(timing, rows: occurrences.count, tag: run.frame.isInsideWindow(bounds) ? "inside window" : "outside window")
        }
    }

    static let search = Scenario(
        name: "search", summary: "searchEvents text 'lunch' (full-text, best 200)",
        referenceName: "sqlite-fts", targetP50: nil, targetRatio: 2
    ) { run in
        let fixture = try run.fixture()
        // The best 200, as the reference's LIMIT 200 (without a limit the engine returns every match).
        let request = IntentRequest(intent: "searchEvents", parameters: ParameterBindings(["text": .set(.string("lunch"))]), page: ResultPage(limit: 200))
        return { measurement in
            let (result, timing) = try Stopwatch.time { try fixture.perform(request) }
            measurement.add(timing, rows: result.records.count)
        }
    }
}
