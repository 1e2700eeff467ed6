import Foundation
import Testing
@testable import CometSchema

/// Shared fixtures for the CometSchema suites: the calendar domain loaded once from
/// `Schemas/`, and helpers that capture typed errors so tests can look at their codes,
/// paths and suggestions.
enum Fixtures {
    /// The repository root: three levels up from this file (`Tests/CometSchemaTests/…`).
    static let repoRoot: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .path

    /// Loaded once; every test unwraps it with `try Fixtures.registry()`.
    private static let loaded: Result<Registry, any Error> = Result {
        try Registry.load(paths: [repoRoot + "/Schemas"])
    }

    static func registry() throws -> Registry {
        try loaded.get()
    }

    /// Loads a schema written in the test into a scratch directory.
    static func registry(schema text: String) throws -> Registry {
        try registry(files: ["test.cal": text])
    }

    /// Loads schema files written in the test (file name → text) from a scratch directory.
    static func registry(files: [String: String]) throws -> Registry {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("cometschema-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for (name, text) in files {
            try text.write(toFile: directory.appendingPathComponent(name).path, atomically: true, encoding: .utf8)
        }
        return try Registry.load(paths: [directory.path])
    }
}

extension Registry {
    /// The calendar declaration of that name, or a test failure.
    func requireEntity(_ name: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> EntityDefinition {
        try #require(entity(QualifiedName(domain: "calendar", name: name)), sourceLocation: sourceLocation)
    }

    func requireEnum(_ name: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> EnumDefinition {
        try #require(enumeration(QualifiedName(domain: "calendar", name: name)), sourceLocation: sourceLocation)
    }

    func requireUnion(_ name: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> UnionDefinition {
        try #require(union(QualifiedName(domain: "calendar", name: name)), sourceLocation: sourceLocation)
    }

    func requireIntent(_ name: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> IntentDefinition {
        try #require(intent(QualifiedName(domain: "calendar", name: name)), sourceLocation: sourceLocation)
    }
}

/// A calendar-domain type expression by name (`calendarType("Attendee", array: true)`).
func calendarType(_ name: String, kind: String, array: Bool = false, optional: Bool = false) -> TypeExpression {
    let qualified = QualifiedName(domain: "calendar", name: name)
    let base: NamedType
    switch kind {
    case "entity": base = .entity(qualified)
    case "enum": base = .enumeration(qualified)
    default: base = .union(qualified)
    }
    return TypeExpression(base, isArray: array, isOptional: optional)
}

/// The `ValueError` that `body` throws, or nil when it succeeds.
func valueError<T>(_ body: () throws(ValueError) -> T) -> ValueError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error
    }
}

/// The `JSONParseError` for `text`, or nil when it parses.
func jsonError(_ text: String) -> JSONParseError? {
    do {
        _ = try JSONParser.parse(text)
        return nil
    } catch {
        return error
    }
}

/// Parses JSON text that the test wrote and expects to be valid.
func json(_ text: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> JSONValue {
    do {
        return try JSONParser.parse(text)
    } catch {
        Issue.record("test JSON does not parse: \(error)", sourceLocation: sourceLocation)
        throw error
    }
}

/// Parses JSON text that must be an object.
func jsonObject(_ text: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> JSONObject {
    try #require(try json(text, sourceLocation: sourceLocation).objectValue, sourceLocation: sourceLocation)
}

/// A zoned, UTC or floating date-time the test expects to parse.
func dateTime(_ text: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> DateTimeValue {
    do {
        return try DateTimeValue(parsing: text)
    } catch {
        Issue.record("'\(text)' does not parse: \(error)", sourceLocation: sourceLocation)
        throw error
    }
}

/// Whether `expected` appears within `actual` in the same relative order (other items may be
/// interleaved): the schema grows, and the declarations a test names must keep their order.
func isOrderedSubsequence(_ expected: [String], of actual: [String]) -> Bool {
    var remaining = actual[...]
    for item in expected {
        guard let index = remaining.firstIndex(of: item) else { return false }
        remaining = remaining[remaining.index(after: index)...]
    }
    return true
}
