import Foundation
import Testing
@testable import CometDAV

func utf8(_ text: String) -> [UInt8] { Array(text.utf8) }

/// The error a body is refused with; the test fails when the body is accepted.
func refusal(_ body: String, limits: DAVXMLLimits = .standard) throws -> DAVXMLError {
    do {
        let root = try DAVXMLReader.parse(utf8(body), limits: limits)
        Issue.record("accepted: \(root.name)")
        throw CancellationError()
    } catch let error as DAVXMLError {
        return error
    }
}

@Suite("The WebDAV XML reader")
struct DAVXMLReaderTests {
    @Test("A body becomes a tree of namespaced elements with attributes, text and line numbers")
    func readsTree() throws {
        let root = try DAVXMLReader.parse(utf8("""
            <?xml version="1.0" encoding="utf-8"?>
            <C:calendar-query xmlns:C="urn:ietf:params:xml:ns:caldav" xmlns:D="DAV:">
              <D:prop xmlns="http://example.com/ns/"><plain/><C:calendar-data/></D:prop>
              <C:text-match collation="i;octet">Tom &amp; Jerry <![CDATA[<raw>]]></C:text-match>
            </C:calendar-query>
            """))
        #expect(root.name == .caldav("calendar-query"))
        #expect(root.line == 2)
        let prop = try #require(root.child(named: .dav("prop")))
        #expect(prop.children.map(\.name) == [DAVName("http://example.com/ns/", "plain"), .caldav("calendar-data")])
        let match = try #require(root.child(named: .caldav("text-match")))
        #expect(match.attribute("collation") == "i;octet")
        #expect(match.text == "Tom & Jerry <raw>")
        #expect(match.line == 4)
    }

    @Test("A DOCTYPE is refused, so the billion laughs never expand")
    func billionLaughsRefused() throws {
        let bomb = """
            <?xml version="1.0"?>
            <!DOCTYPE lolz [
              <!ENTITY lol "lol">
              <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
              <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
              <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
              <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
              <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
              <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
              <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
              <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
              <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
            ]>
            <D:propfind xmlns:D="DAV:"><D:prop><D:displayname>&lol9;</D:displayname></D:prop></D:propfind>
            """
        let error = try refusal(bomb)
        #expect(error.kind == .doctypeRefused)
        #expect(error.description.contains("DOCTYPE"))
    }

    @Test("An external entity is refused before any file is opened")
    func externalEntityRefused() throws {
        let secret = FileManager.default.temporaryDirectory.appendingPathComponent("cometdav-secret-\(UUID().uuidString).txt")
        try "SECRET-MARKER".write(to: secret, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: secret) }
        let loadsBefore = DAVXMLReader.externalLoadsRefused.load(ordering: .relaxed)
        let error = try refusal("""
            <?xml version="1.0"?>
            <!DOCTYPE propfind [ <!ENTITY secret SYSTEM "\(secret.absoluteString)"> ]>
            <D:propfind xmlns:D="DAV:"><D:prop><D:displayname>&secret;</D:displayname></D:prop></D:propfind>
            """)
        #expect(error.kind == .doctypeRefused)
        #expect(!error.description.contains("SECRET-MARKER"))
        // libxml2 never asked for the file: its loader (which refuses everything) was not called.
        #expect(DAVXMLReader.externalLoadsRefused.load(ordering: .relaxed) == loadsBefore)
    }

    @Test("An external DTD is refused before libxml2 would fetch it")
    func externalDTDRefused() throws {
        let error = try refusal("""
            <?xml version="1.0"?>
            <!DOCTYPE propfind SYSTEM "http://127.0.0.1:9/evil.dtd">
            <D:propfind xmlns:D="DAV:"><D:allprop/></D:propfind>
            """)
        #expect(error.kind == .doctypeRefused)
    }

    @Test("Nesting deeper than the limit is refused with the line; at the limit it is read")
    func depthLimit() throws {
        func nested(_ depth: Int) -> String {
            String(repeating: "<a>\n", count: depth) + String(repeating: "</a>", count: depth)
        }
        let limits = DAVXMLLimits(maximumDepth: 64)
        _ = try DAVXMLReader.parse(utf8(nested(64)), limits: limits)
        let error = try refusal(nested(65), limits: limits)
        #expect(error.kind == .tooDeep)
        #expect(error.line == 65)
        #expect(error.message.contains("64"))
    }

    @Test("More elements than the limit are refused; at the limit they are read")
    func elementCountLimit() throws {
        func flat(_ count: Int) -> String {
            "<r>" + String(repeating: "<e/>", count: count - 1) + "</r>"
        }
        let limits = DAVXMLLimits(maximumElements: 1000)
        #expect(try DAVXMLReader.parse(utf8(flat(1000)), limits: limits).children.count == 999)
        let error = try refusal(flat(1001), limits: limits)
        #expect(error.kind == .tooManyElements)
        #expect(error.message.contains("1000"))
    }

    @Test("A body over the size limit is refused before parsing; 1 MiB by default")
    func sizeLimit() throws {
        #expect(DAVXMLLimits.standard.maximumBytes == 1_048_576)
        let body = "<r>" + String(repeating: "x", count: 100) + "</r>"
        let error = try refusal(body, limits: DAVXMLLimits(maximumBytes: body.utf8.count - 1))
        #expect(error.kind == .tooLarge)
        _ = try DAVXMLReader.parse(utf8(body), limits: DAVXMLLimits(maximumBytes: body.utf8.count))
    }

    @Test("Malformed XML is refused with libxml2's message and its line number")
    func malformedWithLine() throws {
        let error = try refusal("<D:propfind xmlns:D=\"DAV:\">\n<D:prop>\n</D:propfind>\n")
        #expect(error.kind == .malformed)
        #expect(error.line == 3)
        #expect(error.description.hasPrefix("XML body, line 3: "))
        #expect(error.message.contains("mismatch"))
    }

    @Test("An undeclared namespace prefix is refused (namespace well-formedness)")
    func undeclaredPrefix() throws {
        let error = try refusal("<D:propfind><D:allprop/></D:propfind>")
        #expect(error.kind == .malformed)
        #expect(error.message.contains("D"))
    }

    @Test("An empty body is malformed for the reader (the PROPFIND decoder reads it as allprop)")
    func emptyBody() throws {
        #expect(try refusal("").kind == .malformed)
    }

    @Test("Parsing writes nothing to stderr, even for malformed bodies")
    func quietOnStderr() throws {
        // The bodies name a probe element that libxml2's own messages would repeat. Other tests
        // run meanwhile; what they write to stderr in this window is passed on afterwards.
        let probe = "cometdavStderrProbe"
        let pipe = Pipe()
        let savedStderr = dup(2)
        dup2(pipe.fileHandleForWriting.fileDescriptor, 2)
        _ = try? DAVXMLReader.parse(utf8("<\(probe)>\n<b></\(probe)x>"))
        _ = try? DAVXMLReader.parse(utf8("<x:\(probe)/>"))
        _ = try? DAVXMLReader.parse(utf8("<\(probe) a='1' a='2'/>"))
        _ = try? DAVXMLReader.parse(utf8("<!DOCTYPE \(probe) [<!ENTITY e SYSTEM \"file:///etc/passwd\">]><\(probe)>&e;</\(probe)>"))
        dup2(savedStderr, 2)
        close(savedStderr)
        try pipe.fileHandleForWriting.close()
        let written = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        FileHandle.standardError.write(Data(written.utf8))
        #expect(!written.contains(probe), "stderr got: \(written)")
    }

    @Test("Parses on several threads at once each get their own error and line")
    func concurrentParses() async throws {
        let results = await withTaskGroup(of: (Int, Int?).self) { group in
            for index in 1...16 {
                group.addTask {
                    // Body `index` breaks on line `index + 2`: its root, `index` lines of elements, the bad end tag.
                    let body = "<r>" + String(repeating: "\n<e/>", count: index) + "\n</wrong>"
                    do {
                        _ = try DAVXMLReader.parse(utf8(body))
                        return (index, nil)
                    } catch {
                        return (index, (error as? DAVXMLError)?.line)
                    }
                }
            }
            var collected: [(Int, Int?)] = []
            for await result in group { collected.append(result) }
            return collected
        }
        #expect(results.count == 16)
        for (index, line) in results {
            #expect(line == index + 2)
        }
    }
}
