import Foundation
import Testing
import CometSchema

/// Golden-file tests for schema diagnostics.
///
/// Every `Golden/NN-name.cal` is compiled on its own and its rendered diagnostics must equal
/// `Golden/NN-name.expected` byte for byte. To regenerate the expected files after a deliberate
/// change to the compiler's output, run the tests with `COMETCAL_UPDATE_GOLDEN=1` and review the
/// diff before committing it.
@Suite struct GoldenDiagnosticsTests {
    static let testsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let goldenDirectory = testsDirectory.appendingPathComponent("Golden")
    /// Tests/CometSchemaTests/<this file> → the repository root is three levels up.
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static var updating: Bool { ProcessInfo.processInfo.environment["COMETCAL_UPDATE_GOLDEN"] == "1" }

    /// The file names (not paths) of every golden schema, sorted.
    static let cases: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: goldenDirectory.path)) ?? []
        return names.filter { $0.hasSuffix(".cal") }.sorted()
    }()

    /// Compiles one golden file alone, under its bare file name so output does not depend on
    /// where the repository is checked out.
    static func compile(_ name: String) throws -> (result: SchemaCompiler.Result, rendered: String) {
        let text = try String(contentsOf: goldenDirectory.appendingPathComponent(name), encoding: .utf8)
        let result = SchemaCompiler.compile(sources: [SourceFile(path: name, text: text)])
        let rendered = DiagnosticRenderer(sources: result.sources).render(result.diagnostics)
        return (result, rendered)
    }

    @Test("golden diagnostics", arguments: cases)
    func golden(_ name: String) throws {
        let (result, actual) = try Self.compile(name)
        let expectedURL = Self.goldenDirectory
            .appendingPathComponent(String(name.dropLast(".cal".count)) + ".expected")

        if Self.updating {
            try Data(actual.utf8).write(to: expectedURL)
            return
        }

        #expect(result.registry == nil, "\(name) is a bad-schema case but compiled without errors")
        guard let expectedData = FileManager.default.contents(atPath: expectedURL.path) else {
            Issue.record("missing \(expectedURL.lastPathComponent); run with COMETCAL_UPDATE_GOLDEN=1 to create it")
            return
        }
        let expected = String(decoding: expectedData, as: UTF8.self)
        #expect(actual == expected, """
            diagnostics for \(name) differ from \(expectedURL.lastPathComponent)
            --- actual ---
            \(actual)--- expected ---
            \(expected)
            """)
    }

    @Test("every golden schema has an expected file and vice versa")
    func pairing() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.goldenDirectory.path)
        let schemas = Set(names.filter { $0.hasSuffix(".cal") }.map { String($0.dropLast(".cal".count)) })
        let expected = Set(names.filter { $0.hasSuffix(".expected") }.map { String($0.dropLast(".expected".count)) })
        if !Self.updating {
            #expect(schemas.subtracting(expected).isEmpty, "schemas without .expected: \(schemas.subtracting(expected).sorted())")
        }
        #expect(expected.subtracting(schemas).isEmpty, ".expected files without a schema: \(expected.subtracting(schemas).sorted())")
    }

    @Test("the golden corpus has at least 25 cases")
    func corpusSize() {
        #expect(Self.cases.count >= 25, "only \(Self.cases.count) golden cases")
    }

    @Test("the shipped Schemas/ directory compiles cleanly")
    func shippedSchemasAreClean() throws {
        let schemas = Self.repositoryRoot.appendingPathComponent("Schemas").path
        let result = try SchemaCompiler.compile(paths: [schemas])
        let rendered = DiagnosticRenderer(sources: result.sources).render(result.diagnostics)
        #expect(result.errorCount == 0, "Schemas/ has errors:\n\(rendered)")
        #expect(result.warningCount == 0, "Schemas/ has warnings:\n\(rendered)")
        #expect(result.registry != nil)
    }
}
