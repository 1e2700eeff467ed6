import Testing
import Foundation
import CometSchema

/// Overlaps said on the command line, and `cometcal free` (issue 20, item 9). The clock is
/// Wed 2026-06-10 12:00 in Berlin.
@Suite("Overlaps and cometcal free")
struct FreeCommandTests: CLISuite {
    let scratch: ScratchDirectory
    let environment: [String: String]

    init() throws {
        (scratch, environment) = try Self.freshStore()
        _ = try CLIRunner.run(["calendar", "add", "Work"], environment: environment)
    }

    @Test("event add onto another event says the overlap in the reply and in --json warnings")
    func overlapSaid() throws {
        try run(["event", "add", "Standup", "--start", "2026-06-12 09:30", "--end", "2026-06-12 09:45"])
        let added = try run(["event", "add", "Call", "--start", "2026-06-12 09:00", "--end", "2026-06-12 10:00"])
        #expect(added.stdout.hasPrefix("Created “Call” for Fri Jun 12 09:00–10:00. This overlaps “Standup” (Fri Jun 12 09:30–09:45).\n"), "\(added.stdout)")
        let moved = try json(["event", "update", "Call", "--start", "2026-06-12 09:40"])
        #expect(moved["warnings"] == .array([.string("This overlaps “Standup” (Fri Jun 12 09:30–09:45).")]), "\(moved)")
        let apart = try json(["event", "add", "Lunch", "--start", "2026-06-12 12:00", "--end", "2026-06-12 13:00"])
        #expect(apart["warnings"] == nil, "\(apart)")
    }

    @Test("free RANGE lists busy stretches with their events and free ones with their length; all-day and transparent events are named apart")
    func freeText() throws {
        try run(["event", "add", "Standup", "--start", "2026-06-12 09:30", "--end", "2026-06-12 09:45"])
        try run(["event", "add", "Call", "--start", "2026-06-12 09:00", "--end", "2026-06-12 10:00"])
        try run(["event", "add", "Review", "--start", "2026-06-12 10:00", "--end", "2026-06-12 11:00"])
        try run(["event", "add", "Lunch", "--start", "2026-06-12 12:30", "--end", "2026-06-12 13:00"])
        try run(["event", "add", "Holiday", "--start", "2026-06-12"])
        try run(["event", "add", "Focus", "--start", "2026-06-12 14:00", "--end", "2026-06-12 16:00", "--no-shows-as-busy"])
        let free = try run(["free", "friday"])
        #expect(free.stdout == """
            Free and busy, Fri Jun 12 00:00 – Sat Jun 13 00:00:
            free  Fri Jun 12 00:00–09:00  9 hours
            busy  Fri Jun 12 09:00–11:00  “Call”, “Standup”, “Review”
            free  Fri Jun 12 11:00–12:30  1 hour 30 minutes
            busy  Fri Jun 12 12:30–13:00  “Lunch”
            free  Fri Jun 12 13:00 – Sat Jun 13 00:00  11 hours
            21 hours 30 minutes free in all.
            Not counted as busy: “Holiday”, Fri Jun 12 (all day); “Focus”, Fri Jun 12 14:00–16:00 (marked free).

            """, "\(free.stdout)")
        let byDate = try run(["free", "2026-06-12"])
        #expect(byDate.stdout == free.stdout)
        let short = try run(["free", "friday", "--min", "2h"])
        #expect(!short.stdout.contains("1 hour 30 minutes"))
        #expect(short.stdout.contains("1 free stretch shorter than 2 hours not listed (--min).\n"), "\(short.stdout)")
    }

    @Test("free with no range runs from now to the end of today")
    func freeDefault() throws {
        try run(["event", "add", "Call", "--start", "2026-06-10 14:00", "--end", "2026-06-10 15:00"])
        let free = try run(["free"])
        #expect(free.stdout.hasPrefix("""
            Free and busy, Wed Jun 10 12:00 – Thu Jun 11 00:00:
            free  Wed Jun 10 12:00–14:00  2 hours
            busy  Wed Jun 10 14:00–15:00  “Call”
            free  Wed Jun 10 15:00 – Thu Jun 11 00:00  9 hours
            11 hours free in all.
            """), "\(free.stdout)")
        let span = try run(["free", "from", "2", "to", "4pm"])
        #expect(span.stdout == "Free and busy, Wed Jun 10 14:00–16:00:\nbusy  Wed Jun 10 14:00–15:00  “Call”\nfree  Wed Jun 10 15:00–16:00  1 hour\n1 hour free in all.\n", "\(span.stdout)")
    }

    @Test("free --json gives stretches with minutes and events, totals, what is not busy and what --min left out")
    func freeJSON() throws {
        try run(["event", "add", "Call", "--start", "2026-06-12 09:00", "--end", "2026-06-12 10:00"])
        try run(["event", "add", "Review", "--start", "2026-06-12 10:15", "--end", "2026-06-12 11:00"])
        try run(["event", "add", "Holiday", "--start", "2026-06-12"])
        try run(["event", "add", "Ping", "--start", "2026-06-12 11:30", "--end", "+0m"])
        let free = try json(["free", "--from", "2026-06-12 08:00", "--to", "2026-06-12 12:00", "--min", "30m"])
        #expect(free["from"] == .string("2026-06-12T08:00:00+02:00"))
        #expect(free["to"] == .string("2026-06-12T12:00:00+02:00"))
        guard case .array(let stretches)? = free["stretches"] else { Issue.record("no stretches: \(free)"); return }
        #expect(stretches.map { $0["kind"]?.stringValue ?? "" } == ["free", "busy", "busy", "free"])
        #expect(stretches.map { $0["minutes"] } == [.int(60), .int(60), .int(45), .int(60)])
        #expect(firstItem(stretches[1]["events"])?["title"] == .string("Call"))
        #expect(free["freeMinutes"] == .int(135))
        #expect(free["busyMinutes"] == .int(105))
        #expect(free["minMinutes"] == .int(30))
        #expect(free["shortFreeLeftOut"] == .int(1))
        #expect(firstItem(free["notBusy"])?["title"] == .string("Holiday"))
        #expect(firstItem(free["notBusy"])?["reason"] == .string("all day"))
        guard case .array(let notBusy)? = free["notBusy"] else { Issue.record("no notBusy: \(free)"); return }
        #expect(notBusy.map { $0["title"]?.stringValue ?? "" } == ["Holiday", "Ping"])
        #expect(notBusy.last?["reason"] == .string("no length"))
        let unlimited = try json(["free", "--from", "2026-06-12 08:00", "--to", "2026-06-12 12:00"])
        #expect(unlimited["minMinutes"] == nil)
        #expect(unlimited["shortFreeLeftOut"] == nil)
    }

    @Test("a range that ends before it starts, and text that is no span, are usage errors")
    func badRanges() throws {
        let backwards = try run(["free", "--from", "2026-06-12 10:00", "--to", "2026-06-12 09:00"], expect: 64)
        #expect(backwards.stderr.contains("error: the range ends"), "\(backwards.stderr)")
        let nonsense = try run(["free", "purple", "elephants"], expect: 64)
        #expect(nonsense.stderr.contains("is not a span of time"), "\(nonsense.stderr)")
    }
}

private func firstItem(_ value: JSONValue?) -> JSONValue? {
    if case .array(let items)? = value { return items.first }
    return nil
}
