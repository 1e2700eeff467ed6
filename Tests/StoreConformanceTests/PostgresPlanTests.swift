import Foundation
import Testing
import CometSchema
import CometStore
@testable import CometPostgresStore
import PostgresTestSupport

/// Statements PostgreSQL would plan anew at each run are planned once (`PGConnection.plannedOnce`).
@Suite("PostgreSQL store: statements planned once")
struct PostgresPlanTests {
    private func fixture() throws -> ConformanceStore { try ConformanceStore(.postgresql) }

    /// The plans PostgreSQL made for the store's occurrence cleanup on its connection: generic, custom.
    private func cleanupPlans(_ store: PostgresStore) throws -> (generic: Int, custom: Int) {
        var plans = (generic: 0, custom: 0)
        try store.connection.query("SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement LIKE 'WITH present AS MATERIALIZED%'") { row in
            plans.generic += Int(row.integer(0) ?? 0)
            plans.custom += Int(row.integer(1) ?? 0)
        }
        return plans
    }

    @Test("a save's occurrence cleanup is planned once for all its runs, never for its values, and the write's plan setting is the database's again after it")
    func cleanupPlannedOnce() throws {
        let fixture = try fixture()
        let store = try #require(fixture.store as? PostgresStore)
        let work = fixture.calendar("Work")
        try fixture.save(work)
        var lunch = try fixture.event("Lunch", in: work, start: "2026-06-16T12:00:00Z")
        let setting = try store.transaction { writer -> String? in
            try writer.save(lunch)
            return try store.connection.scalar("SELECT current_setting('plan_cache_mode')")
        }
        #expect(setting == "auto")
        // New records and changed ones, a series among them: more runs than PostgreSQL's five
        // custom plans before it weighs the generic one.
        for index in 0..<8 {
            lunch["title"] = .string("Lunch \(index)")
            try fixture.save(lunch, try fixture.event("Event \(index)", in: work, start: "2026-06-17T12:00:00Z",
                                                      index == 3 ? ["uid": .string("weekly"), "recurrence": .recurrence(try RecurrenceRule(parsing: "FREQ=WEEKLY"))] : [:]))
        }
        let plans = try cleanupPlans(store)
        #expect(plans.custom == 0 && plans.generic >= 17, "\(plans)")
        #expect(try fixture.occurrences(from: "2026-06-17T00:00:00Z", to: "2026-06-18T00:00:00Z").occurrences.count == 8)
        #expect(try fixture.occurrences(from: "2026-06-24T00:00:00Z", to: "2026-06-25T00:00:00Z").occurrences.map { fixture.title($0.record) } == ["Event 3"])
    }

    @Test("a write's range rows are planned once too: its checks of a day, run again and again, make no custom plan")
    func writeRowsPlannedOnce() throws {
        let fixture = try fixture()
        let store = try #require(fixture.store as? PostgresStore)
        let work = fixture.calendar("Work")
        try fixture.save(work)
        let from = try #require(try DateTimeValue(parsing: "2026-06-16T00:00:00Z").instant)
        let to = try #require(try DateTimeValue(parsing: "2026-06-17T00:00:00Z").instant)
        for index in 0..<8 {
            let seen = try store.transaction { writer -> Int in
                try writer.save(try fixture.event("Event \(index)", in: work, start: "2026-06-16T12:00:00Z"))
                return try writer.occurrences(ConformanceStore.event, from: from, to: to, zone: ConformanceStore.berlin, matching: [], text: nil, limit: nil, offset: 0).occurrences.count
            }
            #expect(seen == index + 1)
        }
        var plans = (generic: 0, custom: 0)
        try store.connection.query("SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement LIKE 'SELECT o.entity_id, o.start_key%'") { row in
            plans.generic += Int(row.integer(0) ?? 0)
            plans.custom += Int(row.integer(1) ?? 0)
        }
        #expect(plans.custom == 0 && plans.generic >= 8, "\(plans)")
    }

    @Test("a long write, planning every statement once from its first ANALYZE, keeps that setting past the cleanups that follow")
    func longWriteKeepsItsSetting() throws {
        let fixture = try fixture()
        let store = try #require(fixture.store as? PostgresStore)
        let work = fixture.calendar("Work")
        try fixture.save(work)
        let setting = try store.transaction { writer -> String? in
            for index in 0...PGSession.firstAnalyze {
                try writer.save(try fixture.event("Event \(index)", in: work, start: String(format: "2026-06-13T%02d:%02d:00Z", index / 60, index % 60)))
            }
            return try store.connection.scalar("SELECT current_setting('plan_cache_mode')")
        }
        #expect(setting == "force_generic_plan")
        #expect(try store.connection.scalar("SELECT current_setting('plan_cache_mode')") == "auto")
    }

    @Test("a record saved as new sends no occurrence cleanup; saved as new a second time in one write, it is cleaned up as any record and shows once, where it moved")
    func newRecordSendsNoCleanup() throws {
        let fixture = try fixture()
        let store = try #require(fixture.store as? PostgresStore)
        let work = fixture.calendar("Work")
        try fixture.save(work)
        func cleanups() throws -> Int {
            Int(try store.connection.scalarInteger("SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE 'WITH present AS MATERIALIZED%'") ?? -1)
        }
        let weekly: [String: Value] = ["uid": .string("standup"), "recurrence": .recurrence(try RecurrenceRule(parsing: "FREQ=WEEKLY;COUNT=3"))]
        try store.transaction { writer in
            try writer.saveNew(try fixture.event("Picnic", in: work, start: "2026-06-13T12:00:00Z"))
            try writer.saveNew(try fixture.event("Standup", in: work, start: "2026-06-15T09:00:00Z", weekly))
        }
        #expect(try cleanups() == 0, "no cleanup statement was ever sent on this connection")

        let lunch = try fixture.event("Lunch", in: work, start: "2026-06-16T12:00:00Z")
        var moved = lunch
        moved["startDate"] = .dateTime(try DateTimeValue(parsing: "2026-06-17T12:00:00Z"))
        try store.transaction { writer in
            try writer.saveNew(lunch)
            try writer.saveNew(moved)
        }
        #expect(try cleanups() == 1, "the second save of the lunch cleaned up its rows")
        func titles(_ from: String, _ to: String) throws -> [String] {
            try fixture.occurrences(from: from, to: to).occurrences.map { fixture.title($0.record) }
        }
        #expect(try titles("2026-06-13T00:00:00Z", "2026-07-01T00:00:00Z") == ["Picnic", "Standup", "Lunch", "Standup", "Standup"])
        #expect(try titles("2026-06-16T00:00:00Z", "2026-06-17T00:00:00Z").isEmpty, "the lunch left its first day")
    }
}
