import Foundation
import Testing

/// docs/architecture.md states facts: its module table is what the sources import, and what it
/// names in backticks exists.
@Suite("docs/architecture.md")
struct ArchitectureDocTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let page = Result { try String(contentsOf: repository.appendingPathComponent("docs/architecture.md"), encoding: .utf8) }

    /// The module table: each module (a row may name several) and the modules it may import.
    static func allowedImports() throws -> [String: Set<String>] {
        var table: [String: Set<String>] = [:]
        for line in try page.get().split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 5 else { continue }
            let modules = cells[1].split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "` ")) }
            let allowed = cells[3] == "—" ? [] : cells[3].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            for module in modules { table[module] = Set(allowed) }
        }
        return table
    }

    /// What the module's sources import.
    static func imports(of module: String) throws -> Set<String> {
        let folder = repository.appendingPathComponent("Sources/\(module)")
        var found = Set<String>()
        let files = try #require(FileManager.default.enumerator(atPath: folder.path))
        for case let relative as String in files where relative.hasSuffix(".swift") {
            let text = try String(contentsOf: folder.appendingPathComponent(relative), encoding: .utf8)
            for line in text.split(separator: "\n") {
                let words = line.split(separator: " ")
                // Attributes (@testable, @preconcurrency) and access levels (internal import) may come first.
                let modifiers: Set<Substring> = ["public", "package", "internal", "fileprivate", "private"]
                if let index = words.firstIndex(of: "import"), words[..<index].allSatisfy({ $0.hasPrefix("@") || modifiers.contains($0) }), index + 1 < words.count {
                    found.insert(String(words[index + 1]))
                }
            }
        }
        return found
    }

    @Test("every module in Sources is in the table, and imports only what its row allows")
    func modulesAndImports() throws {
        let table = try Self.allowedImports()
        let modules = try FileManager.default.contentsOfDirectory(atPath: Self.repository.appendingPathComponent("Sources").path).filter { !$0.hasPrefix(".") }
        #expect(modules.count >= 14)
        for module in modules.sorted() {
            guard let allowed = table[module] else {
                Issue.record("Sources/\(module) is not in docs/architecture.md's module table")
                continue
            }
            let extra = try Self.imports(of: module).subtracting(allowed)
            #expect(extra.isEmpty, "Sources/\(module) imports \(extra.sorted()), which its row does not allow")
        }
        #expect(Set(table.keys) == Set(modules), "rows for modules that do not exist: \(Set(table.keys).subtracting(modules).sorted())")
    }

    @Test("the check reads imports as they are written (it would see a module import up)")
    func theCheckCanFail() throws {
        #expect(try Self.imports(of: "CometSQLiteStore").contains("CSQLite"))
        // An import with an access level (SE-0409) is an import too.
        #expect(try Self.imports(of: "CometDAV").contains("CLibXML2"))
        #expect(try Self.allowedImports()["CometStore"]?.contains("CSQLite") == false)
    }

    @Test("every type, file and folder named in backticks exists")
    func namesExist() throws {
        let text = try Self.page.get()
        let sources = try Self.allSources()
        var checked = 0
        for name in Self.backticked(text) {
            if name.contains("://") {
                continue  // an address, not a path
            } else if name.contains("/") || name.hasSuffix(".swift") || name.hasSuffix(".md") {
                let candidates = [name, "docs/" + name] + (name.hasSuffix(".swift") ? sources.keys.filter { $0.hasSuffix("/" + name) } : [])
                #expect(candidates.contains { FileManager.default.fileExists(atPath: Self.repository.appendingPathComponent($0).path) },
                        "\(name) is not a path of the repository")
                checked += 1
            } else if let first = name.unicodeScalars.first, CharacterSet.uppercaseLetters.contains(first),
                      name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." }) {
                let parts = name.split(separator: ".").map(String.init)
                let declared = sources.values.contains { text in
                    ["struct", "class", "enum", "protocol", "actor", "typealias", "final class"].contains { text.contains("\($0) \(parts[0])") }
                } || FileManager.default.fileExists(atPath: Self.repository.appendingPathComponent("Sources/\(parts[0])").path)
                #expect(declared, "\(parts[0]) is declared nowhere in Sources or Tests")
                if parts.count == 2 {
                    #expect(sources.values.contains { $0.contains("func \(parts[1])") }, "\(name): no func \(parts[1])")
                }
                checked += 1
            }
        }
        #expect(checked > 30, "only \(checked) names checked")
    }

    /// Names in backticks, outside fenced blocks (a diagram is not a list of names).
    static func backticked(_ text: String) -> [String] {
        let prose = text.components(separatedBy: "```").enumerated().compactMap { $0.offset % 2 == 0 ? $0.element : nil }.joined(separator: "\n")
        return prose.components(separatedBy: "`").enumerated().compactMap { $0.offset % 2 == 1 ? $0.element : nil }
    }

    static func allSources() throws -> [String: String] {
        var texts: [String: String] = [:]
        for root in ["Sources", "Tests"] {
            let folder = repository.appendingPathComponent(root)
            let files = try #require(FileManager.default.enumerator(atPath: folder.path))
            for case let relative as String in files where relative.hasSuffix(".swift") {
                texts[root + "/" + relative] = try String(contentsOf: folder.appendingPathComponent(relative), encoding: .utf8)
            }
        }
        return texts
    }

    @Test("the README points to docs/architecture.md, and to no path outside the repository")
    func readmePointsInside() throws {
        let readme = try String(contentsOf: Self.repository.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains("(docs/architecture.md)"))
        let outside = readme.split(separator: "\n").enumerated().filter { $0.element.contains("../") }
        #expect(outside.isEmpty, "README.md:\(outside.map { "\($0.offset + 1): \($0.element)" })")
    }
}
