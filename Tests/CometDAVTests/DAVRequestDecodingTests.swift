import Testing
@testable import CometDAV

/// The request error a body is refused with; the test fails when it is accepted.
func requestError<T>(_ decode: () throws(DAVBodyError) -> T) throws -> DAVRequestError {
    let decoded: T
    do {
        decoded = try decode()
    } catch {
        switch error {
        case .request(let requestError):
            return requestError
        case .xml(let xmlError):
            Issue.record("refused as XML, not as a request: \(xmlError)")
            throw CancellationError()
        }
    }
    Issue.record("accepted: \(decoded)")
    throw CancellationError()
}

@Suite("PROPFIND, PROPPATCH, MKCALENDAR and MKCOL bodies")
struct DAVPropertyRequestTests {
    let boxschema = "http://ns.example.com/boxschema/"

    @Test("RFC 4918 §9.1.3: named properties, in the order asked, in their own namespace")
    func propfindNamedProperties() throws {
        let selection = try DAVPropfindRequest.decode(body: utf8("""
            <?xml version="1.0" encoding="utf-8" ?>
            <D:propfind xmlns:D="DAV:">
              <D:prop xmlns:R="http://ns.example.com/boxschema/">
                <R:bigbox/>
                <R:author/>
                <R:DingALing/>
                <R:Random/>
              </D:prop>
            </D:propfind>
            """))
        #expect(selection == .prop(["bigbox", "author", "DingALing", "Random"].map { DAVName(boxschema, $0) }))
    }

    @Test("RFC 4918 §9.1.4: propname, with DAV: as the default namespace")
    func propfindPropname() throws {
        let selection = try DAVPropfindRequest.decode(body: utf8("""
            <?xml version="1.0" encoding="utf-8" ?>
            <propfind xmlns="DAV:">
              <propname/>
            </propfind>
            """))
        #expect(selection == .propname)
    }

    @Test("RFC 4918 §9.1.5: allprop")
    func propfindAllprop() throws {
        let selection = try DAVPropfindRequest.decode(body: utf8("""
            <?xml version="1.0" encoding="utf-8" ?>
            <D:propfind xmlns:D="DAV:">
              <D:allprop/>
            </D:propfind>
            """))
        #expect(selection == .allprop(include: []))
    }

    @Test("RFC 4918 §9.1.6: allprop with include")
    func propfindAllpropInclude() throws {
        let selection = try DAVPropfindRequest.decode(body: utf8("""
            <?xml version="1.0" encoding="utf-8" ?>
            <D:propfind xmlns:D="DAV:">
              <D:allprop/>
              <D:include>
                <D:supported-live-property-set/>
                <D:supported-report-set/>
              </D:include>
            </D:propfind>
            """))
        #expect(selection == .allprop(include: [.dav("supported-live-property-set"), .dav("supported-report-set")]))
    }

    @Test("RFC 4918 §9.1: an empty body (or whitespace only) is allprop")
    func propfindEmptyBody() throws {
        #expect(try DAVPropfindRequest.decode(body: [UInt8]()) == .allprop(include: []))
        #expect(try DAVPropfindRequest.decode(body: utf8(" \r\n")) == .allprop(include: []))
    }

    @Test("PROPFIND refuses two choices, none, include without allprop, and another root, naming the element")
    func propfindRefusals() throws {
        let both = try requestError { () throws(DAVBodyError) in
            try DAVPropfindRequest.decode(body: utf8("<D:propfind xmlns:D=\"DAV:\"><D:allprop/>\n<D:propname/></D:propfind>"))
        }
        #expect(both.element == .dav("propname"))
        #expect(both.line == 2)
        let none = try requestError { () throws(DAVBodyError) in
            try DAVPropfindRequest.decode(body: utf8("<D:propfind xmlns:D=\"DAV:\"/>"))
        }
        #expect(none.element == .dav("propfind"))
        #expect(none.message.contains("allprop, propname and prop"))
        let include = try requestError { () throws(DAVBodyError) in
            try DAVPropfindRequest.decode(body: utf8("<D:propfind xmlns:D=\"DAV:\"><D:prop/><D:include/></D:propfind>"))
        }
        #expect(include.element == .dav("include"))
        let root = try requestError { () throws(DAVBodyError) in
            try DAVPropfindRequest.decode(body: utf8("<propfind><allprop/></propfind>"))
        }
        #expect(root.message.contains("no namespace"))
    }

    @Test("RFC 4918 §9.2.2: PROPPATCH keeps set and remove in order, with each property's XML value")
    func proppatchExample() throws {
        let request = try DAVProppatchRequest.decode(body: utf8("""
            <?xml version="1.0" encoding="utf-8" ?>
            <D:propertyupdate xmlns:D="DAV:"
                    xmlns:Z="http://ns.example.com/standards/z39.50/">
              <D:set>
                <D:prop>
                  <Z:Authors>
                    <Z:Author>Jim Whitehead</Z:Author>
                    <Z:Author>Roy Fielding</Z:Author>
                  </Z:Authors>
                </D:prop>
              </D:set>
              <D:remove>
                <D:prop><Z:Copyright-Owner/></D:prop>
              </D:remove>
            </D:propertyupdate>
            """))
        let z = "http://ns.example.com/standards/z39.50/"
        try #require(request.instructions.count == 2)
        guard case .set(let authors) = request.instructions[0] else {
            Issue.record("first instruction is not a set: \(request.instructions[0])")
            return
        }
        #expect(authors.name == DAVName(z, "Authors"))
        #expect(authors.children.map(\.trimmedText) == ["Jim Whitehead", "Roy Fielding"])
        #expect(request.instructions[1] == .remove(DAVName(z, "Copyright-Owner")))
    }

    @Test("PROPPATCH refuses a set without prop and an update with nothing in it")
    func proppatchRefusals() throws {
        let noProp = try requestError { () throws(DAVBodyError) in
            try DAVProppatchRequest.decode(body: utf8("<D:propertyupdate xmlns:D=\"DAV:\"><D:set/></D:propertyupdate>"))
        }
        #expect(noProp.element == .dav("set"))
        let nothing = try requestError { () throws(DAVBodyError) in
            try DAVProppatchRequest.decode(body: utf8("<D:propertyupdate xmlns:D=\"DAV:\"/>"))
        }
        #expect(nothing.element == .dav("propertyupdate"))
    }

    @Test("RFC 4791 §5.3.1.2: MKCALENDAR's properties, the time zone's CDATA included")
    func mkcalendarExample() throws {
        let request = try DAVMakeCollectionRequest.decodeMkcalendar(body: utf8("""
            <?xml version="1.0" encoding="utf-8" ?>
            <C:mkcalendar xmlns:D="DAV:"
                          xmlns:C="urn:ietf:params:xml:ns:caldav">
              <D:set>
                <D:prop>
                  <D:displayname>Lisa's Events</D:displayname>
                  <C:calendar-description xml:lang="en"
              >Calendar restricted to events.</C:calendar-description>
                  <C:supported-calendar-component-set>
                    <C:comp name="VEVENT"/>
                  </C:supported-calendar-component-set>
                  <C:calendar-timezone><![CDATA[BEGIN:VCALENDAR
            PRODID:-//Example Corp.//CalDAV Client//EN
            VERSION:2.0
            END:VCALENDAR
            ]]></C:calendar-timezone>
                </D:prop>
              </D:set>
            </C:mkcalendar>
            """))
        #expect(request.properties.map(\.name) == [.dav("displayname"), .caldav("calendar-description"), .caldav("supported-calendar-component-set"), .caldav("calendar-timezone")])
        #expect(request.properties[0].text == "Lisa's Events")
        #expect(request.properties[1].attribute("lang", namespace: "http://www.w3.org/XML/1998/namespace") == "en")
        #expect(request.properties[2].children.first?.attribute("name") == "VEVENT")
        #expect(request.properties[3].text.hasPrefix("BEGIN:VCALENDAR\nPRODID"))
    }

    @Test("RFC 4791 §5.3.1: a MKCALENDAR without a body sets nothing")
    func mkcalendarEmpty() throws {
        #expect(try DAVMakeCollectionRequest.decodeMkcalendar(body: [UInt8]()).properties.isEmpty)
    }

    @Test("RFC 5689 §5.1: an extended MKCOL's resource types and properties")
    func extendedMkcol() throws {
        let request = try DAVMakeCollectionRequest.decodeMkcol(body: utf8("""
            <?xml version="1.0" encoding="utf-8" ?>
            <D:mkcol xmlns:D="DAV:"
                          xmlns:C="urn:ietf:params:xml:ns:caldav">
              <D:set>
                <D:prop>
                  <D:resourcetype>
                    <D:collection/>
                    <C:calendar/>
                  </D:resourcetype>
                  <D:displayname>Special Resource</D:displayname>
                </D:prop>
              </D:set>
            </D:mkcol>
            """))
        #expect(request.resourceTypes == [.dav("collection"), .caldav("calendar")])
        #expect(request.properties.last?.text == "Special Resource")
    }

    @Test("MKCALENDAR refuses a remove and an MKCOL body sent to MKCALENDAR")
    func mkcalendarRefusals() throws {
        let remove = try requestError { () throws(DAVBodyError) in
            try DAVMakeCollectionRequest.decodeMkcalendar(body: utf8("<C:mkcalendar xmlns:D=\"DAV:\" xmlns:C=\"urn:ietf:params:xml:ns:caldav\"><D:remove><D:prop><D:displayname/></D:prop></D:remove></C:mkcalendar>"))
        }
        #expect(remove.element == .dav("remove"))
        let wrongRoot = try requestError { () throws(DAVBodyError) in
            try DAVMakeCollectionRequest.decodeMkcalendar(body: utf8("<D:mkcol xmlns:D=\"DAV:\"/>"))
        }
        #expect(wrongRoot.element == .dav("mkcol"))
    }
}
