@testable import CometDAV

/// WebDAV request bodies: any bytes are read by the XML reader or refused, never a crash or a
/// hang; what it reads goes through every request decoder and, for a calendar-query, the filter
/// evaluator; and any tree it reads, written back by the multistatus writer, reads again as the
/// same tree (names, namespaces, attributes, text).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDAVXML(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let limits = DAVXMLLimits(maximumBytes: 64 * 1024, maximumDepth: 64, maximumElements: 5_000)
    _ = try? DAVPropfindRequest.decode(body: bytes, limits: limits)
    guard let root = try? DAVXMLReader.parse(bytes, limits: limits) else { return 0 }
    _ = try? DAVProppatchRequest.decode(root: root)
    _ = try? DAVMakeCollectionRequest.decode(root: root, expecting: root.name)
    if case .calendarQuery(let query)? = try? DAVReportRequest.decode(root: root) {
        let calendar = DAVComponent(name: "VCALENDAR", components: [
            DAVComponent(name: "VEVENT", properties: [
                DAVComponentProperty(name: "SUMMARY", value: "Café", parameters: [DAVComponentParameter(name: "LANGUAGE", values: ["fr"])]),
            ], components: [DAVComponent(name: "VALARM")]),
        ])
        let evaluator = DAVFilterEvaluator(componentOverlaps: { _, _, range in range.start != nil },
                                           propertyOverlaps: { _, _, range in range.end != nil })
        _ = try? evaluator.matches(query.filter, calendar: calendar)
    }

    let wrapper = DAVName("DAV:", "fuzz")
    let document = DAVMultistatus(responses: [.properties(href: "/fuzz", found: [DAVProperty(wrapper, .elements([root]))])]).document()
    // The writer adds five levels (multistatus, response, propstat, prop, the property).
    let again: DAVXMLElement
    do {
        again = try DAVXMLReader.parse(document.bytes, limits: DAVXMLLimits(maximumBytes: Int.max, maximumDepth: 64 + 5, maximumElements: Int.max))
    } catch {
        fatalError("what the writer wrote does not read: \(error)\n\(document.text)")
    }
    guard let written = again.children.first?.children(named: .dav("propstat")).first?.child(named: .dav("prop"))?.children.first?.children.first else {
        fatalError("the written tree is not where it was put:\n\(document.text)")
    }
    if withoutLines(written) != withoutLines(root) {
        fatalError("the tree changed on its way through the writer:\n\(document.text)")
    }
    return 0
}

private func withoutLines(_ element: DAVXMLElement) -> DAVXMLElement {
    DAVXMLElement(name: element.name, attributes: element.attributes, children: element.children.map(withoutLines), text: element.text)
}
