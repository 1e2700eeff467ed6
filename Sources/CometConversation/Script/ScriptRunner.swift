import Foundation
import CometSchema
import CometStore
import CometIntents

/// Plays scripts, each against a fresh store in a temporary folder that is removed after it.
public struct ScriptRunner {
    /// What came of one script.
    public struct Result: Sendable {
        public struct Failure: Sendable, CustomStringConvertible {
            public let path: String
            public let line: Int
            public let expected: String
            public let got: String
            public var description: String { "\(path):\(line): expected \(expected); got \(got)" }
        }

        /// What an `@audio` turn was heard as.
        public struct Heard: Sendable {
            public let line: Int
            public let file: String
            public let text: String
            public let confidence: Double
            /// The voice gate's decision (docs/voice.md): passed, asked, notCaught, …
            public let decision: String
        }

        public let path: String
        public let turns: Int
        public let failures: [Failure]
        /// The `@audio` turns, in order, with what was heard.
        public var heard: [Heard] = []
        public var passed: Bool { failures.isEmpty }
    }

    /// Hears `@audio` turns; without one, such a turn fails at its line.
    public var listener: (any ScriptListener)?

    /// The registry scripts run on unless they name their own with `@schemas`.
    let registry: Registry
    /// Makes the world a script plays in, on its registry, clock and zone: a fresh store by default.
    let world: (Registry, Date, TimeZone) throws -> any ScriptWorld
    /// Whether a script may bring its own schemas (`@schemas`): not through a daemon, which
    /// serves one registry.
    let allowsOwnSchemas: Bool

    /// Scripts played each in a fresh store of its own, opened with `opener`.
    public init(registry: Registry, opener: StoreOpener) {
        self.registry = registry
        world = { registry, now, zone in try LocalScriptWorld(registry: registry, now: now, timeZone: zone, opener: opener) }
        allowsOwnSchemas = true
    }

    /// Scripts played in a world of the caller's: a daemon's store, which serves one registry
    /// (`allowsOwnSchemas` false), or a local one the caller wraps (the voice tests).
    public init(registry: Registry, allowsOwnSchemas: Bool = false, world: @escaping (Registry, Date, TimeZone) throws -> any ScriptWorld) {
        self.registry = registry
        self.world = world
        self.allowsOwnSchemas = allowsOwnSchemas
    }

    public func run(path: String) -> Result {
        let script: ConversationScript
        do { script = try ConversationScript.load(path: path) } catch {
            return Result(path: path, turns: 0, failures: [.init(path: path, line: error.line, expected: "a well-formed script", got: error.message)])
        }
        return run(script)
    }

    public func run(_ script: ConversationScript) -> Result {
        var failures: [Result.Failure] = []
        func fail(_ line: Int, _ expected: String, _ got: String) {
            failures.append(.init(path: script.path, line: line, expected: expected, got: got))
        }
        let folder = URL(fileURLWithPath: script.path).deletingLastPathComponent()

        // The setting first: schemas, clock and zone come before any turn.
        var registry = self.registry
        var clock = (local: LocalDateTime(date: CalendarDate(year: 2026, month: 6, day: 8)!, hour: 9, minute: 0)!, zone: "UTC")
        for line in script.lines {
            switch line.directive {
            case .schemas(let relative):
                guard allowsOwnSchemas else {
                    fail(line.number, "schemas of its own (@schemas \(relative))", "a daemon serves one registry; play this script without --connect, or against a daemon started with --schemas \(relative)")
                    return Result(path: script.path, turns: 0, failures: failures)
                }
                let path = folder.appendingPathComponent(relative).path
                do {
                    let compiled = try SchemaCompiler.compile(paths: [path])
                    guard let loaded = compiled.registry, compiled.errorCount == 0 else {
                        let first = compiled.diagnostics.first.map { "\($0.location.path):\($0.location.line): \($0.message)" } ?? "no schema files"
                        fail(line.number, "schemas that compile at \(relative)", first)
                        return Result(path: script.path, turns: 0, failures: failures)
                    }
                    registry = loaded
                } catch {
                    fail(line.number, "a schema folder at \(relative)", "\(error)")
                    return Result(path: script.path, turns: 0, failures: failures)
                }
            case .now(let local, let zone): clock = (local, zone)
            default: continue
            }
        }
        guard let zone = TimeZone(identifier: clock.zone), let now = clock.local.dateTime(in: zone).instant else {
            fail(0, "a clock", "no instant for @now in \(clock.zone)")
            return Result(path: script.path, turns: 0, failures: failures)
        }

        let world: any ScriptWorld
        let conversation: any ScriptConversation
        do {
            world = try self.world(registry, now, zone)
            conversation = try world.openConversation(now: now, timeZone: zone)
        } catch {
            fail(0, "a store to play in", "\(error)")
            return Result(path: script.path, turns: 0, failures: failures)
        }
        let checker = StoreChecker(world: world, zone: zone, now: now)

        var last: Conversation.Turn?
        var turns = 0
        var heard: [Result.Heard] = []
        for line in script.lines {
            switch line.directive {
            case .now, .schemas: continue
            case .seed(let relative):
                let path = folder.appendingPathComponent(relative).path
                guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                    fail(line.number, "a seed file at \(relative)", "no readable file")
                    continue
                }
                let report = world.importSeed(name: relative, text: text)
                if !report.written || !report.problems.isEmpty {
                    let problem = report.problems.first.map { "\($0.source):\($0.line): \($0.message)" } ?? "nothing was imported"
                    fail(line.number, "\(relative) to import", problem)
                }
            case .say(let text):
                last = conversation.say(text)
                turns += 1
            case .audio(let relative):
                guard let listener else {
                    fail(line.number, "a listener for @audio \(relative)", "this runner hears no sound (it was given no listener); play the script with cometcal converse, which hears it")
                    continue
                }
                let path = folder.appendingPathComponent(relative).path
                switch listener.play(audio: path, conversation: conversation, world: world) {
                case .success(let hearing):
                    last = hearing.turn
                    turns += 1
                    heard.append(Result.Heard(line: line.number, file: relative, text: hearing.heard, confidence: hearing.confidence, decision: hearing.decision))
                case .failure(let problem):
                    fail(line.number, "a turn heard from \(relative)", problem.message)
                    last = nil
                }
            case .reply(let check):
                guard let reply = last?.reply else { fail(line.number, "a reply", "no turn before this line"); continue }
                switch check {
                case .contains(let text):
                    if reply.range(of: text, options: [.caseInsensitive, .diacriticInsensitive]) == nil {
                        fail(line.number, "the reply to contain “\(text)”", "“\(reply)”")
                    }
                case .exact(let text):
                    if reply.trimmingCharacters(in: .whitespacesAndNewlines) != text { fail(line.number, "the reply “\(text)”", "“\(reply)”") }
                case .matches(let pattern):
                    let expression = try? NSRegularExpression(pattern: pattern)
                    let range = NSRange(reply.startIndex..., in: reply)
                    if expression?.firstMatch(in: reply, range: range) == nil { fail(line.number, "the reply to match /\(pattern)/", "“\(reply)”") }
                }
            case .outcome(let name, let detail):
                guard let outcome = last?.outcome else { fail(line.number, name, "no turn before this line"); continue }
                let actual = ScriptRunner.spell(outcome)
                let expected = detail.map { name + " " + $0 } ?? name
                let matches = outcome.name == name && (detail == nil || actual == expected)
                if !matches { fail(line.number, "outcome \(expected)", "\(actual) (“\(last?.reply ?? "")”)") }
            case .field(let entity, let title, let field, let value):
                if let problem = checker.check(entity: entity, title: title, field: field, expected: value) {
                    fail(line.number, "\(entity) “\(title)” \(field) \(value)", problem)
                }
            case .exists(let entity, let title, let present):
                if let problem = checker.exists(entity: entity, title: title, present: present) {
                    fail(line.number, "\(entity) “\(title)” to be \(present ? "there" : "gone")", problem)
                }
            case .count(let entity, let number):
                switch checker.count(entity) {
                case .success(let actual): if actual != number { fail(line.number, "\(number) \(entity) records", "\(actual)") }
                case .failure(let problem): fail(line.number, "a count of \(entity)", problem.message)
                }
            }
        }
        var result = Result(path: script.path, turns: turns, failures: failures)
        result.heard = heard
        return result
    }

    /// `needsValue title`, `needsDisambiguation 2`: an outcome as scripts write it.
    static func spell(_ outcome: TurnOutcome) -> String {
        switch outcome {
        case .needsValue(let parameter): return "needsValue \(parameter)"
        case .needsDisambiguation(let count): return "needsDisambiguation \(count)"
        default: return outcome.name
        }
    }
}
