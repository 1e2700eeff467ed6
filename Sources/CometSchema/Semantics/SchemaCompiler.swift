import Foundation

/// Finds schema files, parses them all and checks them together, collecting every diagnostic.
public enum SchemaCompiler {
    public struct Result: Sendable {
        /// Nil when any diagnostic is an error.
        public let registry: Registry?
        public let diagnostics: [Diagnostic]
        public let sources: [SourceFile]

        public var errorCount: Int { diagnostics.filter { $0.severity == .error }.count }
        public var warningCount: Int { diagnostics.filter { $0.severity == .warning }.count }
    }

    public static let fileExtension = "cal"

    /// Compiles every `*.cal` file found under `paths` (directories are searched recursively,
    /// files are taken as they are), in a stable order.
    public static func compile(paths: [String]) throws -> Result {
        var files: [String] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw SchemaLoadError.notADirectory(path: path)
            }
            if isDirectory.boolValue {
                let found = schemaFiles(under: path)
                guard !found.isEmpty else { throw SchemaLoadError.noSchemaFiles(path: path) }
                files.append(contentsOf: found)
            } else {
                files.append(path)
            }
        }
        let sources = try files.map { try SourceFile.load(path: $0) }
        return compile(sources: sources)
    }

    /// Compiles sources already in memory (tests, tools).
    public static func compile(sources: [SourceFile]) -> Result {
        var diagnostics: [Diagnostic] = []
        var files: [SchemaFileSyntax] = []
        for source in sources {
            let (file, fileDiagnostics) = Parser.parse(source)
            files.append(file)
            diagnostics.append(contentsOf: fileDiagnostics)
        }
        var checker = Checker(files: files)
        let registry = checker.check()
        diagnostics.append(contentsOf: checker.diagnostics)
        diagnostics.sort()
        let hasErrors = diagnostics.contains { $0.severity == .error }
        return Result(registry: hasErrors ? nil : registry, diagnostics: diagnostics, sources: sources)
    }

    static func schemaFiles(under directory: String) -> [String] {
        // The enumerator does not descend into a symbolic link, so resolve one given as the
        // directory itself; reported paths keep the spelling the user gave.
        let resolved = (directory as NSString).resolvingSymlinksInPath
        guard let enumerator = FileManager.default.enumerator(atPath: resolved) else { return [] }
        var found: [String] = []
        while let relative = enumerator.nextObject() as? String {
            if relative.hasSuffix("." + fileExtension) {
                found.append((directory as NSString).appendingPathComponent(relative))
            }
        }
        return found.sorted()
    }
}
