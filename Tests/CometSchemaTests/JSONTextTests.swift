import Foundation
import Testing
@testable import CometSchema
import TestThreads

/// A small seeded generator (SplitMix64), so a failing record can be made again from its seed.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476C_E5E4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Records of any entity of a registry with values of every kind the entity's types allow,
/// including the awkward ones: strings to escape, whole and negative-zero doubles, zones with
/// DST, floating and UTC times, skipped wall times, unions, transient objects and arrays.
struct RecordGenerator {
    let registry: Registry
    var random: SeededGenerator

    static let zones = ["Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata", "Pacific/Chatham", "UTC", "America/St_Johns"]
    static let texts = ["Standup", "", "quote \" and backslash \\", "line\nbreak\ttab\r", "control \u{01}\u{1F}", "line separator \u{2028} \u{2029}",
                        "ünïcödé ☕ 🎉", "€ 100", "</script>", "a/b"]
    static let doubles: [Double] = [0, -0.0, 1, -3, 28.6, -80.6, 0.1, 1e15, 1e14, -1e15, 123_456.789, .pi, 1e-7, 5e300]

    mutating func pick<T>(_ items: [T]) -> T { items[Int.random(in: 0..<items.count, using: &random)] }
    mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }
    mutating func uuid() -> UUID {
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in bytes.indices { bytes[index] = UInt8.random(in: 0...255, using: &random) }
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }

    mutating func local() -> LocalDateTime {
        let date = CalendarDate(year: pick([1, 1899, 1970, 2026, 2038, 9999]) + (chance(50) ? 0 : Int.random(in: 0...0, using: &random)),
                                month: Int.random(in: 1...12, using: &random), day: Int.random(in: 1...28, using: &random))!
        return LocalDateTime(date: date, hour: Int.random(in: 0...23, using: &random), minute: Int.random(in: 0...59, using: &random),
                             second: Int.random(in: 0...59, using: &random))!
    }

    mutating func dateTime() -> DateTimeValue {
        switch Int.random(in: 0..<4, using: &random) {
        case 0: return .floating(local())
        case 1: return DateTimeValue(kind: .utc(epochSeconds: Int64.random(in: -62_135_596_800...253_402_300_799, using: &random)))
        case 2:
            // Berlin's spring-forward gap: the skipped wall time is kept as written.
            let gap = LocalDateTime(date: CalendarDate(year: 2026, month: 3, day: 29)!, hour: 2, minute: Int.random(in: 0...59, using: &random))!
            return (try? DateTimeValue.zoned(gap, timeZone: "Europe/Berlin")) ?? .floating(gap)
        default:
            let seconds = Int64.random(in: -2_000_000_000...4_000_000_000, using: &random)
            return DateTimeValue(kind: .zoned(epochSeconds: seconds, timeZone: pick(Self.zones)))
        }
    }

    mutating func value(_ type: TypeExpression) -> Value {
        if type.isArray {
            return .array((0..<Int.random(in: 0...3, using: &random)).map { _ in value(type.element) })
        }
        switch type.base {
        case .builtin(let builtin): return value(builtin)
        case .enumeration(let name):
            guard let cases = registry.enumeration(name)?.cases, !cases.isEmpty else { return .enumCase("x") }
            return .enumCase(pick(cases).name)
        case .union(let name):
            guard let cases = registry.union(name)?.cases, !cases.isEmpty else { return .string("x") }
            let chosen = pick(cases)
            return .union(chosen.name, value(chosen.type))
        case .entity(let name):
            guard let definition = registry.entity(name), definition.kind != .indexed else { return .reference(uuid()) }
            return .object(properties(of: definition))
        }
    }

    mutating func value(_ builtin: BuiltinType) -> Value {
        switch builtin {
        case .string: return .string(pick(Self.texts))
        case .int: return .int(pick([0, 1, -1, 42, Int.max, Int.min, 1_000_000]))
        case .double: return .double(pick(Self.doubles))
        case .bool: return .bool(chance(50))
        case .date: return .date(local().date)
        case .dateTime: return .dateTime(dateTime())
        case .duration: return .duration(DurationValue(isNegative: chance(30), weeks: 0, days: Int.random(in: 0...2, using: &random),
                                                       hours: Int.random(in: 0...5, using: &random), minutes: Int.random(in: 0...59, using: &random)))
        case .url: return .url(URL(string: pick(["https://meet.example/launch?x=1&y=\"2\"", "mailto:ada@example.org", "https://example.org/a%20b"]))!)
        case .uuid: return .uuid(uuid())
        case .person: return .person(PersonValue(name: chance(70) ? pick(Self.texts) : nil, email: chance(50) ? "ada@example.org" : nil,
                                                 phone: chance(30) ? "+1 555 0100" : nil))
        case .place: return .place(PlaceValue(name: chance(70) ? pick(Self.texts) : nil, address: chance(50) ? pick(Self.texts) : nil,
                                              latitude: chance(50) ? pick(Self.doubles) : nil, longitude: chance(50) ? pick(Self.doubles) : nil))
        case .recurrence: return .recurrence(try! RecurrenceRule(parsing: pick(["FREQ=WEEKLY;COUNT=4;BYDAY=MO,WE", "FREQ=DAILY", "FREQ=MONTHLY;BYDAY=2TU"])))
        }
    }

    mutating func properties(of entity: EntityDefinition) -> [String: Value] {
        var values: [String: Value] = [:]
        for property in entity.properties where property.isRequired || chance(70) {
            values[property.name] = value(property.type)
        }
        return values
    }

    mutating func record(of entity: EntityDefinition) -> EntityRecord {
        EntityRecord(entity: entity.name, id: uuid(), values: properties(of: entity))
    }
}

@Suite("JSON written straight to text")
struct JSONTextTests {
    @Test("Records of every entity written as text are the bytes their tree is written as, over generated values")
    func recordsAsTextMatchTheTree() throws {
        let registry = try Fixtures.registry()
        var generator = RecordGenerator(registry: registry, random: SeededGenerator(seed: 21))
        var compared = 0
        for entity in registry.allEntities {
            for _ in 0..<300 {
                let record = generator.record(of: entity)
                let text = JSONText.write { registry.write(record, into: &$0) }.description
                let tree = JSONWriter.compact(.object(registry.encode(record)))
                try #require(text == tree, "record \(record)")
                compared += 1
            }
        }
        #expect(compared == registry.allEntities.count * 300)
    }

    @Test("Every builtin value written as text is the bytes its tree is written as")
    func builtinsAsTextMatchTheTree() throws {
        let registry = try Fixtures.registry()
        var generator = RecordGenerator(registry: registry, random: SeededGenerator(seed: 7))
        for builtin in BuiltinType.allCases {
            for _ in 0..<200 {
                let value = generator.value(builtin)
                let text = JSONText.write { registry.write(value, into: &$0) }.description
                try #require(text == JSONWriter.compact(registry.encode(value)), "\(builtin): \(value)")
            }
        }
    }

    @Test("Values without a type (objects sorted by key, unions, arrays) written as text match the tree")
    func untypedValuesMatchTheTree() throws {
        let registry = try Fixtures.registry()
        let value = Value.array([.object(["b": .int(1), "a": .union("relative", .string("x\"y")), "c": .array([])]), .array([.bool(true), .double(-0.0)])])
        let text = JSONText.write { registry.write(value, into: &$0) }.description
        #expect(text == JSONWriter.compact(registry.encode(value)))
        #expect(text == #"[{"a":{"relative":"x\"y"},"b":1,"c":[]},[true,-0.0]]"#)
    }

    @Test("Numbers are spelled as JSON numbers: whole doubles with .0, negative zero kept, no NaN")
    func numbers() {
        func text(_ number: Double) -> String { JSONText.write { $0.write(number) }.description }
        #expect(text(1) == "1.0")
        #expect(text(-3) == "-3.0")
        #expect(text(-0.0) == "-0.0")
        #expect(text(0.1) == "0.1")
        #expect(text(1e15) == "1000000000000000.0")
        #expect(text(1e16) == "1e+16")
        #expect(text(999_999_999_999_999) == "999999999999999.0")
        #expect(text(.nan) == "null")
        #expect(text(-.infinity) == "null")
        #expect(JSONText.write { $0.write(Int.min) }.description == "-9223372036854775808")
        #expect(JSONText.write { $0.write(0) }.description == "0")
    }

    @Test("Strings escape quotes, backslashes, control characters and the line separators, and nothing else")
    func strings() {
        let text = JSONText.write { $0.write("a\"b\\c\nd\re\tf\u{01}g\u{2028}h\u{2029}i☕") }.description
        #expect(text == #""a\"b\\c\nd\re\tf\u0001g\u2028h\u2029i☕""#)
    }

    @Test("Objects and arrays get commas between items only, nested or not, and a text written before goes in whole")
    func structure() {
        let inner = JSONText.write { text in
            text.beginObject()
            text.key("x")
            text.beginArray()
            text.endArray()
            text.endObject()
        }
        let text = JSONText.write { text in
            text.beginArray()
            text.beginObject()
            text.endObject()
            text.write(inner)
            text.writeNull()
            text.beginObject()
            text.key("a")
            text.write(1)
            text.key("b")
            text.write(inner)
            text.endObject()
            text.endArray()
        }
        #expect(text.description == #"[{},{"x":[]},null,{"a":1,"b":{"x":[]}}]"#)
        #expect(JSONWriter.compact(try! JSONParser.parse(bytes: text.bytes)) == text.description)
    }

    @Test("A tree written through the tree builder is the same tree")
    func treeBuilderRebuildsTrees() throws {
        let tree: JSONValue = ["a": [1, 2.5, "x", nil, true], "b": ["c": [:], "d": []]]
        #expect(JSONTreeBuilder.build { $0.write(tree) } == tree)
    }
}

@Suite("Date-times written without Foundation's formatters")
struct DateTimeTextTests {
    /// What the text must say, read independently with Foundation's calendar in the zone.
    static func expected(seconds: Int64, zone identifier: String) throws -> String {
        let zone = try #require(TimeZone(identifier: identifier))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let date = Date(timeIntervalSince1970: TimeInterval(seconds))
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        let offset = zone.secondsFromGMT(for: date)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let year = String(repeating: "0", count: max(0, 4 - String(parts.year!).count)) + String(parts.year!)
        let sign = offset < 0 ? "-" : "+"
        return "\(year)-\(two(parts.month!))-\(two(parts.day!))T\(two(parts.hour!)):\(two(parts.minute!)):\(two(parts.second!))"
            + "\(sign)\(two(abs(offset) / 3600)):\(two(abs(offset) % 3600 / 60))[\(identifier)]"
    }

    @Test("Zoned date-times read as Foundation's calendar reads their instant in their zone, across DST changes")
    func zonedTimes() throws {
        var random = SeededGenerator(seed: 3)
        // Around the 2026 changes in Berlin and New York, and spread over 1900–2100.
        let around: [Int64] = [1_774_746_000, 1_792_890_000, 1_773_558_000, 1_793_512_800]
        for zone in RecordGenerator.zones {
            for index in 0..<400 {
                let seconds = index < 200 ? around[index % around.count] + Int64(index / 4 - 25) * 900
                                          : Int64.random(in: -2_208_988_800...4_102_444_800, using: &random)
                let value = DateTimeValue(kind: .zoned(epochSeconds: seconds, timeZone: zone))
                let expected = try Self.expected(seconds: seconds, zone: zone)
                try #require(value.description == expected, "\(seconds) in \(zone)")
                var bytes: [UInt8] = []
                value.appendText(to: &bytes)
                try #require(String(decoding: bytes, as: UTF8.self) == value.description)
            }
        }
    }

    @Test("UTC and floating times, and the ends of the years 1 to 9999, are written in full")
    func utcAndFloating() throws {
        #expect(DateTimeValue(kind: .utc(epochSeconds: 0)).description == "1970-01-01T00:00:00Z")
        #expect(DateTimeValue(kind: .utc(epochSeconds: -62_135_596_800)).description == "0001-01-01T00:00:00Z")
        #expect(DateTimeValue(kind: .utc(epochSeconds: 253_402_300_799)).description == "9999-12-31T23:59:59Z")
        let date = try #require(CalendarDate(year: 987, month: 6, day: 5))
        let local = try #require(LocalDateTime(date: date, hour: 4, minute: 3, second: 2))
        #expect(DateTimeValue.floating(local).description == "0987-06-05T04:03:02")
        #expect(try #require(CalendarDate(year: 2026, month: 12, day: 2)).description == "2026-12-02")
    }

    @Test("A wall time skipped by a DST change is written as written, with its zone and no offset")
    func skippedWallTime() throws {
        let day = try #require(CalendarDate(year: 2026, month: 3, day: 29))
        let gap = try #require(LocalDateTime(date: day, hour: 2, minute: 30))
        #expect(try DateTimeValue.zoned(gap, timeZone: "Europe/Berlin").description == "2026-03-29T02:30:00[Europe/Berlin]")
    }
}

@Suite("Texts of records kept with the record")
struct RecordTextCacheTests {
    @Test("A record's kept text is copied only for an equal record: a changed record is written afresh, and every answer is the bytes of its tree")
    func keptTextServesOnlyEqualRecords() throws {
        let registry = try Fixtures.registry()
        let event = try registry.requireEntity("Event")
        var generator = RecordGenerator(registry: registry, random: SeededGenerator(seed: 11))
        let cache = RecordTextCache()
        let first = generator.record(of: event)
        var changed = first
        changed["title"] = .string("Changed \"title\"")
        let other = generator.record(of: event)
        for records in [[first, first], [first, other, first], [changed], [first, changed, changed, other]] {
            let text = JSONText.write(recordTexts: cache) { text in
                text.beginObject()
                text.key("entities")
                text.beginArray()
                for record in records { registry.write(record, into: &text) }
                text.endArray()
                text.endObject()
            }
            let tree = JSONValue.object(JSONObject([("entities", .array(records.map { .object(registry.encode($0)) }))]))
            try #require(text.description == JSONWriter.compact(tree))
        }
        #expect(cache.count == 2)
        let again = JSONText.write(recordTexts: cache) { registry.write(changed, into: &$0) }
        #expect(again.description.contains(#""title":"Changed \"title\"""#))
    }

    @Test("Four threads writing and copying through one cache at once each get their records' own text")
    func shared() throws {
        let registry = try Fixtures.registry()
        let calendar = try registry.requireEntity("Calendar")
        var generator = RecordGenerator(registry: registry, random: SeededGenerator(seed: 9))
        let records = (0..<64).map { _ in generator.record(of: calendar) }
        let expected = records.map { record in JSONText.write { registry.write(record, into: &$0) }.description }
        let cache = RecordTextCache(limit: 32)
        let wrong = Counter()
        WorkerThreads.run(4) { worker in
            for round in 0..<2_000 {
                let index = (round * 7 + worker * 13) % records.count
                let text = JSONText.write(recordTexts: cache) { registry.write(records[index], into: &$0) }.description
                if text != expected[index] { wrong.add() }
            }
        }
        #expect(wrong.value == 0)
        #expect(cache.count <= 32)
    }

    @Test("At most its limit of texts are kept: the older generation goes when the recent one fills")
    func bounded() throws {
        let registry = try Fixtures.registry()
        let calendar = try registry.requireEntity("Calendar")
        var generator = RecordGenerator(registry: registry, random: SeededGenerator(seed: 5))
        let cache = RecordTextCache(limit: 4)
        for _ in 0..<10 { _ = JSONText.write(recordTexts: cache) { registry.write(generator.record(of: calendar), into: &$0) } }
        #expect(cache.count == 4)
        cache.removeAll()
        #expect(cache.count == 0)
    }
}

private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
