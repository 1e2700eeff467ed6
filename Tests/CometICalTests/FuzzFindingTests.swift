import Testing
import Foundation
import CometSchema
import CometICal

/// Inputs the fuzzers found that crashed, each kept as a fixture (Tests/Fixtures/fuzz) and read
/// here as the fuzz target read it, so the fix stays.
@Suite("fuzz findings")
struct FuzzFindingTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/fuzz")

    @Test("every finding is read to its end, as text (bytes repaired) and as a file", arguments: ["ical-crash-quirk-line.ics", "import-timeout-rfc-examples.ics", "import-timeout-materialization.ics"])
    func finding(name: String) throws {
        let registry = try Registry.load(paths: [Self.fixtures.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Schemas").path])
        let data = try Data(contentsOf: Self.fixtures.appendingPathComponent(name))
        let reader = ICalReader(registry: registry, text: String(decoding: data, as: UTF8.self))
        var items = 0
        while reader.next() != nil { items += 1 }
        #expect(items > 0)
        let handle = try FileHandle(forReadingFrom: Self.fixtures.appendingPathComponent(name))
        defer { try? handle.close() }
        let fromFile = ICalReader(registry: registry, handle: handle)
        while fromFile.next() != nil {}
    }
}
