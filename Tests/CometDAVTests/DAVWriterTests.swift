import Foundation
import Testing
@testable import CometDAV

@Suite("Multistatus and error bodies")
struct DAVWriterTests {
    let calendarData = "BEGIN:VCALENDAR\r\nSUMMARY:Tom & Jerry <live> \"quoted\"\r\nEND:VCALENDAR\r\n"

    var sample: DAVMultistatus {
        DAVMultistatus(responses: [
            DAVResponse(href: "/dav/alice/work/a%26b%3Cc%3E.ics", body: .propstats([
                DAVPropstat(status: 200, properties: [
                    DAVProperty(.dav("getetag"), .text("\"etag-1\"")),
                    DAVProperty(.caldav("calendar-data"), .text(calendarData)),
                    DAVProperty(.dav("resourcetype"), .elements([DAVXMLElement(name: .dav("collection")), DAVXMLElement(name: .caldav("calendar"))])),
                    DAVProperty(.dav("current-user-principal"), .hrefs(["/dav/alice/"])),
                    DAVProperty(.dav("getcontentlength"), .empty),
                    DAVProperty(DAVName("http://example.com/ns/", "custom"), .text("x")),
                ]),
                DAVPropstat(status: 404, properties: [DAVProperty(.appleICal("calendar-color"))]),
                DAVPropstat(status: 403, properties: []),
            ])),
            DAVResponse(href: "/dav/alice/work/missing.ics", body: .status(404)),
            .truncated(requestURI: "/dav/alice/work/", description: "only 2 of 5 changes"),
        ], syncToken: "urn:cometcal:sync:42")
    }

    @Test("A multistatus read back by our parser: responses, propstats by status, values, sync-token at the end")
    func readBack() throws {
        let document = sample.document()
        #expect(document.replacedCharacters == 0)
        let root = try DAVXMLReader.parse(document.bytes)
        #expect(root.name == .dav("multistatus"))
        #expect(root.children.map(\.name) == [.dav("response"), .dav("response"), .dav("response"), .dav("sync-token")])
        #expect(root.children.last?.text == "urn:cometcal:sync:42")

        let first = root.children[0]
        #expect(first.child(named: .dav("href"))?.text == "/dav/alice/work/a%26b%3Cc%3E.ics")
        let propstats = first.children(named: .dav("propstat"))
        // The 403 group had no properties, so it is not written.
        #expect(propstats.map { $0.child(named: .dav("status"))?.text } == ["HTTP/1.1 200 OK", "HTTP/1.1 404 Not Found"])
        let found = try #require(propstats[0].child(named: .dav("prop")))
        #expect(found.children.map(\.name) == [.dav("getetag"), .caldav("calendar-data"), .dav("resourcetype"), .dav("current-user-principal"), .dav("getcontentlength"), DAVName("http://example.com/ns/", "custom")])
        #expect(found.children[0].text == "\"etag-1\"")
        #expect(found.children[1].text == calendarData)
        #expect(found.children[2].children.map(\.name) == [.dav("collection"), .caldav("calendar")])
        #expect(found.children[3].children.map(\.text) == ["/dav/alice/"])
        #expect(found.children[4].children.isEmpty && found.children[4].text.isEmpty)
        #expect(propstats[1].child(named: .dav("prop"))?.children.map(\.name) == [.appleICal("calendar-color")])

        #expect(root.children[1].child(named: .dav("status"))?.text == "HTTP/1.1 404 Not Found")
        let truncated = root.children[2]
        #expect(truncated.child(named: .dav("status"))?.text == "HTTP/1.1 507 Insufficient Storage")
        #expect(truncated.child(named: .dav("error"))?.children.map(\.name) == [.dav("number-of-matches-within-limits")])
        #expect(truncated.child(named: .dav("responsedescription"))?.text == "only 2 of 5 changes")
    }

    @Test("The four prefixes are declared once, at the root; another namespace on its element")
    func prefixesAtRoot() {
        let text = sample.document().text
        #expect(text.hasPrefix("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<D:multistatus xmlns:D=\"DAV:\" xmlns:C=\"urn:ietf:params:xml:ns:caldav\" xmlns:CS=\"http://calendarserver.org/ns/\" xmlns:ICAL=\"http://apple.com/ns/ical/\">"))
        #expect(text.components(separatedBy: "xmlns:D=").count == 2)
        #expect(text.contains("<X:custom xmlns:X=\"http://example.com/ns/\">x</X:custom>"))
    }

    @Test("<, &, > and \" are escaped in values and hrefs; a carriage return survives as &#13;")
    func escaping() {
        let text = DAVMultistatus(responses: [
            DAVResponse.properties(href: "/a&b<c>\"d\"", found: [DAVProperty(.dav("displayname"), .text("Tom & Jerry <b> \"x\"\r\n"))]),
        ]).document().text
        #expect(text.contains("<D:href>/a&amp;b&lt;c&gt;&quot;d&quot;</D:href>"))
        #expect(text.contains("<D:displayname>Tom &amp; Jerry &lt;b&gt; &quot;x&quot;&#13;\n</D:displayname>"))
    }

    @Test("Characters XML cannot carry are written as U+FFFD and counted")
    func unrepresentableCharacters() throws {
        let document = DAVMultistatus(responses: [
            DAVResponse.properties(href: "/a", found: [DAVProperty(.dav("displayname"), .text("bell\u{7}nul\u{0}ok\tline\n\u{FFFE}\u{FFFF}\u{FFFD}\u{EFFF}é"))]),
        ]).document()
        #expect(document.replacedCharacters == 4)
        let root = try DAVXMLReader.parse(document.bytes)
        let name = root.children.first?.child(named: .dav("propstat"))?.child(named: .dav("prop"))?.child(named: .dav("displayname"))
        #expect(name?.text == "bell\u{FFFD}nul\u{FFFD}ok\tline\n\u{FFFD}\u{FFFD}\u{FFFD}\u{EFFF}é")
    }

    @Test("An error body carries its precondition (with the href of no-uid-conflict) and a sentence")
    func errorBody() throws {
        let document = DAVErrorBody(.noUIDConflict(href: "/dav/alice/work/other.ics"), description: "UID 42 is already in other.ics").document()
        let root = try DAVXMLReader.parse(document.bytes)
        #expect(root.name == .dav("error"))
        #expect(root.children.map(\.name) == [.caldav("no-uid-conflict"), .dav("responsedescription")])
        #expect(root.children[0].child(named: .dav("href"))?.text == "/dav/alice/work/other.ics")
        #expect(root.children[1].text == "UID 42 is already in other.ics")
        let plain = DAVErrorBody(.validSyncToken).document().text
        #expect(plain.hasSuffix("<D:error xmlns:D=\"DAV:\" xmlns:C=\"urn:ietf:params:xml:ns:caldav\" xmlns:CS=\"http://calendarserver.org/ns/\" xmlns:ICAL=\"http://apple.com/ns/ical/\"><D:valid-sync-token/></D:error>"))
    }

    @Test("A request's PROPPATCH value is written back as it came, namespaces and attributes included")
    func requestElementRoundTrip() throws {
        let request = try DAVProppatchRequest.decode(body: utf8("""
            <D:propertyupdate xmlns:D="DAV:" xmlns:Z="urn:z"><D:set><D:prop>
            <Z:Authors kind="list"><Z:Author>Jim &amp; Roy</Z:Author><D:href>/x</D:href></Z:Authors>
            </D:prop></D:set></D:propertyupdate>
            """))
        guard case .set(let authors) = try #require(request.instructions.first) else {
            Issue.record("not a set")
            return
        }
        let document = DAVMultistatus(responses: [.properties(href: "/r", found: [DAVProperty(authors.name, .elements(authors.children))])]).document()
        let root = try DAVXMLReader.parse(document.bytes)
        let written = try #require(root.children.first?.child(named: .dav("propstat"))?.child(named: .dav("prop"))?.children.first)
        #expect(written.name == DAVName("urn:z", "Authors"))
        #expect(written.children.map(\.name) == [DAVName("urn:z", "Author"), .dav("href")])
        #expect(written.children.first?.text == "Jim & Roy")
    }

    @Test("Attributes keep their namespaces: xml:lang as xml:, two other namespaces on one element apart")
    func attributeNamespaces() throws {
        let element = DAVXMLElement(name: .caldav("calendar-description"), attributes: [
            DAVXMLAttribute(name: DAVName("http://www.w3.org/XML/1998/namespace", "lang"), value: "en"),
            DAVXMLAttribute(name: DAVName("urn:a", "one"), value: "1"),
            DAVXMLAttribute(name: DAVName("urn:b", "two"), value: "2"),
            DAVXMLAttribute(name: DAVName("urn:a", "three"), value: "3"),
            DAVXMLAttribute(name: .dav("four"), value: "4"),
        ], text: "Work")
        let document = DAVMultistatus(responses: [.properties(href: "/r", found: [DAVProperty(.dav("x"), .elements([element]))])]).document()
        let root = try DAVXMLReader.parse(document.bytes)
        let written = try #require(root.children.first?.child(named: .dav("propstat"))?.child(named: .dav("prop"))?.children.first?.children.first)
        #expect(written.attributes == element.attributes)
        #expect(document.text.contains(" xml:lang=\"en\""))
    }

    @Test("Python's xml.etree reads our multistatus the same way (a second, independent reader)")
    func pythonReadsMultistatus() throws {
        guard let python = ["/usr/bin/python3", "/usr/local/bin/python3"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            Issue.record("python3 is not installed; this test needs it as an oracle")
            return
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("cometdav-\(UUID().uuidString).xml")
        try Data(sample.document().bytes).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let script = """
            import sys, xml.etree.ElementTree as ET
            D = "{DAV:}"; C = "{urn:ietf:params:xml:ns:caldav}"
            root = ET.parse(sys.argv[1]).getroot()
            for response in root.findall(D + "response"):
                print("href", response.findtext(D + "href"))
                for propstat in response.findall(D + "propstat"):
                    print("status", propstat.findtext(D + "status"))
                    for prop in propstat.find(D + "prop"):
                        print("prop", prop.tag, repr(prop.text or ""))
                if response.find(D + "status") is not None:
                    print("status", response.findtext(D + "status"))
            print("token", root.findtext(D + "sync-token"))
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", script, file.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(lines == [
            "href /dav/alice/work/a%26b%3Cc%3E.ics",
            "status HTTP/1.1 200 OK",
            "prop {DAV:}getetag '\"etag-1\"'",
            "prop {urn:ietf:params:xml:ns:caldav}calendar-data 'BEGIN:VCALENDAR\\r\\nSUMMARY:Tom & Jerry <live> \"quoted\"\\r\\nEND:VCALENDAR\\r\\n'",
            "prop {DAV:}resourcetype ''",
            "prop {DAV:}current-user-principal ''",
            "prop {DAV:}getcontentlength ''",
            "prop {http://example.com/ns/}custom 'x'",
            "status HTTP/1.1 404 Not Found",
            "prop {http://apple.com/ns/ical/}calendar-color ''",
            "href /dav/alice/work/missing.ics",
            "status HTTP/1.1 404 Not Found",
            "href /dav/alice/work/",
            "status HTTP/1.1 507 Insufficient Storage",
            "token urn:cometcal:sync:42",
        ])
    }
}
