import Testing
import Foundation
import CometSchema

/// Crash consistency with real processes: `cometcal` killed with SIGKILL at random points of a
/// large import and of a burst of updates. After each kill the store passes SQLite's integrity
/// check, the import is entirely there or entirely absent, every update that was acknowledged
/// (exit 0) is there, and undo still restores exactly. (The daemon's kill -9 cases are in
/// DaemonCrashTests.) The kill points come from a seeded generator, printed on failure.
@Suite("crash consistency")
struct CrashConsistencyTests: CLISuite {
    let scratch: ScratchDirectory
    let environment: [String: String]

    init() throws {
        (scratch, environment) = try Self.freshStore()
    }

    var storePath: String { environment["COMETCAL_DB"]! }

    /// A small deterministic generator (SplitMix64), so a failing run can be repeated.
    struct Seeded: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    func start(_ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = try CLIRunner.binary()
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "COMETCAL_SCHEMAS")
        env["XDG_CONFIG_HOME"] = "/nonexistent/cometcal-tests-config"
        for (key, value) in environment { env[key] = value }
        process.environment = env
        process.currentDirectoryURL = CLIRunner.repositoryRoot
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    func integrityOK() throws -> Bool { try CLIRunner.integrity(of: storePath) == "ok\n" }

    func total() throws -> Int {
        guard case .int(let count)? = try json(["event", "list", "--limit", "1"])["total"] else { return -1 }
        return count
    }

    @Test("SIGKILL at random points of a large import: whole or absent, sound, and the undo journal still restores exactly")
    func killedImport() throws {
        try run(["calendar", "add", "Home"])
        try run(["event", "add", "Before", "--start", "2026-06-10 10:00"])
        var text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//crash//EN\r\n"
        for index in 0..<6_000 {
            text += "BEGIN:VEVENT\r\nUID:crash-\(index)@t\r\nDTSTAMP:20260601T000000Z\r\nDTSTART:20260\(6 + index % 3)1\(index % 9)T100000Z\r\n"
                + "SUMMARY:Imported \(index)\r\n" + (index % 10 == 0 ? "RRULE:FREQ=WEEKLY;COUNT=20\r\n" : "") + "END:VEVENT\r\n"
        }
        text += "END:VCALENDAR\r\n"
        let file = scratch.url.appendingPathComponent("big.ics")
        try text.write(to: file, atomically: true, encoding: .utf8)
        // A fixed seed, so a failing run can be repeated.
        let seed: UInt64 = 0x5EED_1817
        var random = Seeded(state: seed)
        var sawWhole = false
        var sawAbsent = false
        for round in 0..<6 {
            // A journaled change just before each import, for undo to take back after the kill.
            try run(["event", "update", "Before", "--note", "round \(round)"])
            let importer = try start(["import", file.path])
            // The first round kills it while it starts (it cannot have committed), the last as soon
            // as another process sees the import committed (before it has closed the store), and
            // the rounds between at points of the seeded generator.
            let delay: Double
            switch round {
            case 0: delay = 0.02
            case 5: delay = -1
            default: delay = Double.random(in: 0.05...2.5, using: &random)
            }
            if delay >= 0 {
                usleep(UInt32(delay * 1_000_000))
            } else {
                while importer.isRunning, try total() != 6_001 { usleep(20_000) }
            }
            let stillRunning = importer.isRunning  // the last round's may have just exited: the kill is then too late, which is fine
            kill(importer.processIdentifier, SIGKILL)
            importer.waitUntilExit()
            if round == 0 { #expect(stillRunning, "the first import was still running when it was killed") }
            #expect(try integrityOK(), "seed \(seed), round \(round), killed after \(delay) s")
            let count = try total()
            #expect(count == 1 || count == 6_001, "seed \(seed), round \(round): \(count) events: an import is all or nothing")
            if count == 6_001 { sawWhole = true } else { sawAbsent = true }
            // A committed import is the newest journal entry, whole: undo takes it all back
            // (which also readies the store for the next round); a killed one left no entry.
            if count == 6_001 {
                try run(["undo"])
                #expect(try total() == 1, "seed \(seed), round \(round): undo takes back the whole import")
            }
            // Then undo takes back the update before it, exactly.
            try run(["undo"])
            let before = try json(["event", "show", "Before"])["entity"]
            // (Each round's undo took back that round's update, so the note is always as it began.)
            #expect(before?["note"] == nil, "seed \(seed), round \(round): \(String(describing: before?["note"]))")
            #expect(try run(["redo"]).status == 0)
            #expect(try json(["event", "show", "Before"])["entity"]?["note"] == .string("round \(round)"), "redo too")
            try run(["undo"])
        }
        // Both outcomes were seen, and nothing in between ever was.
        #expect(sawAbsent, "an import killed before its commit left nothing")
        #expect(sawWhole, "an import killed after its commit left it whole")
        // And the store still takes the import whole afterwards.
        try run(["import", file.path])
        #expect(try total() == 6_001)
    }

    @Test("SIGKILL during a burst of updates: every acknowledged update is there, and undo restores exactly")
    func killedUpdates() throws {
        try run(["calendar", "add", "Home"])
        try run(["event", "add", "Counter", "--start", "2026-06-10 10:00", "--note", "0"])
        let seed: UInt64 = 0xC0FFEE
        var random = Seeded(state: seed)
        var acknowledged = 0
        for round in 1...5 {
            // Acknowledged updates, one after another.
            for step in 0..<4 {
                let value = round * 10 + step
                #expect(try CLIRunner.run(["event", "update", "Counter", "--note", String(value)], environment: environment).status == 0)
                acknowledged = value
            }
            // One more, killed at a random point: it may or may not have committed.
            let inFlight = round * 10 + 9
            let updater = try start(["event", "update", "Counter", "--note", String(inFlight)])
            usleep(UInt32(Double.random(in: 0.0...0.4, using: &random) * 1_000_000))
            kill(updater.processIdentifier, SIGKILL)
            updater.waitUntilExit()
            #expect(try integrityOK(), "seed \(seed), round \(round)")
            let note = try json(["event", "show", "Counter"])["entity"]?["note"]
            #expect(note == .string(String(acknowledged)) || note == .string(String(inFlight)), "seed \(seed), round \(round): \(String(describing: note))")
            if note == .string(String(inFlight)) {
                // It committed before it died: undo takes exactly that one back.
                try run(["undo"])
                #expect(try json(["event", "show", "Counter"])["entity"]?["note"] == .string(String(acknowledged)))
            }
        }
        // Undo walks back through the acknowledged updates one by one.
        try run(["undo"])
        #expect(try json(["event", "show", "Counter"])["entity"]?["note"] == .string(String(acknowledged - 1)))
    }
}
