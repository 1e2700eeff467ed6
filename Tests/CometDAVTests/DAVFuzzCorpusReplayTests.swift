import Foundation
import Testing
@testable import CometDAV

/// The davxml fuzzer's corpus (Tests/Fuzz/Corpus/davxml.tar.xz, kept by scripts/fuzz) and its
/// findings (Tests/Fuzz/Findings/davxml-*), replayed in the ordinary suite with the fuzz
/// target's checks: every input is read or refused, decoded, and what is read writes back to
/// the same tree.
@Suite("The davxml fuzz corpus, replayed")
struct DAVFuzzCorpusReplayTests {
    static let fuzzFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz")

    static func inputs() throws -> [URL] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cometdav-fuzz-replay-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let tar = Process()
        tar.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        tar.arguments = ["tar", "-xJf", fuzzFolder.appendingPathComponent("Corpus/davxml.tar.xz").path, "-C", folder.path]
        try tar.run()
        tar.waitUntilExit()
        try #require(tar.terminationStatus == 0, "tar could not unpack davxml.tar.xz (is xz-utils installed? scripts/bootstrap)")
        let corpus = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted().map { folder.appendingPathComponent($0) }
        let findingsFolder = fuzzFolder.appendingPathComponent("Findings")
        let findings = ((try? FileManager.default.contentsOfDirectory(atPath: findingsFolder.path)) ?? [])
            .filter { $0.hasPrefix("davxml-") }.sorted().map { findingsFolder.appendingPathComponent($0) }
        return corpus + findings
    }

    static func withoutLines(_ element: DAVXMLElement) -> DAVXMLElement {
        DAVXMLElement(name: element.name, attributes: element.attributes, children: element.children.map(withoutLines), text: element.text)
    }

    @Test("Every input is read or refused, and every tree read writes back to the same tree")
    func replay() throws {
        let inputs = try Self.inputs()
        #expect(inputs.count > 100, "the corpus is there: \(inputs.count)")
        defer { if let first = inputs.first { try? FileManager.default.removeItem(at: first.deletingLastPathComponent()) } }
        let limits = DAVXMLLimits(maximumBytes: 64 * 1024, maximumDepth: 64, maximumElements: 5_000)
        var read = 0
        for file in inputs {
            let bytes = [UInt8](try Data(contentsOf: file))
            _ = try? DAVPropfindRequest.decode(body: bytes, limits: limits)
            guard let root = try? DAVXMLReader.parse(bytes, limits: limits) else { continue }
            read += 1
            _ = try? DAVProppatchRequest.decode(root: root)
            _ = try? DAVReportRequest.decode(root: root)
            let document = DAVMultistatus(responses: [.properties(href: "/fuzz", found: [DAVProperty(.dav("fuzz"), .elements([root]))])]).document()
            let again = try DAVXMLReader.parse(document.bytes, limits: DAVXMLLimits(maximumBytes: Int.max, maximumDepth: 69, maximumElements: Int.max))
            let written = again.children.first?.child(named: .dav("propstat"))?.child(named: .dav("prop"))?.children.first?.children.first
            #expect(written.map(Self.withoutLines) == Self.withoutLines(root), "\(file.lastPathComponent)")
        }
        // Both kinds are in the corpus: bodies that read and bodies that are refused.
        #expect(read > 0 && read < inputs.count, "read \(read) of \(inputs.count)")
    }
}
