internal import CLibXML2
import Synchronization

/// Bounds on a request body, each refused with its own error when passed.
public struct DAVXMLLimits: Hashable, Sendable {
    /// Bytes of the body as received (before any decoding).
    public var maximumBytes: Int
    /// Nesting of elements; the root is depth 1.
    public var maximumDepth: Int
    /// Elements in the whole document.
    public var maximumElements: Int

    public init(maximumBytes: Int = 1 << 20, maximumDepth: Int = 64, maximumElements: Int = 50_000) {
        self.maximumBytes = maximumBytes
        self.maximumDepth = maximumDepth
        self.maximumElements = maximumElements
    }

    public static let standard = DAVXMLLimits()
}

/// Why a body could not be read as XML. `description` is meant for the client (a 400 body).
public struct DAVXMLError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: Hashable, Sendable {
        case tooLarge
        case tooDeep
        case tooManyElements
        /// A document type declaration: refused outright (no DTDs, no entities).
        case doctypeRefused
        /// Not well-formed XML (or not namespace-well-formed).
        case malformed
        /// libxml2 could not allocate a parser.
        case parserUnavailable
    }

    public let kind: Kind
    public let message: String
    /// The line in the body, when libxml2 knows it.
    public let line: Int?

    public var description: String {
        if let line { return "XML body, line \(line): \(message)" }
        return "XML body: \(message)"
    }
}

/// Reads request bodies into `DAVXMLElement` trees with libxml2, safely: no network, no entity
/// substitution, no DTD (a DOCTYPE is refused), bounded size, depth and element count, and
/// libxml2's messages kept out of stderr.
public enum DAVXMLReader {
    /// Parses `body` (UTF-8 or whatever its XML declaration says) into its root element.
    public static func parse(_ body: some Collection<UInt8>, limits: DAVXMLLimits = .standard) throws(DAVXMLError) -> DAVXMLElement {
        if body.count > limits.maximumBytes {
            throw DAVXMLError(kind: .tooLarge, message: "the body has \(body.count) bytes, more than the \(limits.maximumBytes) allowed", line: nil)
        }
        let bytes = Array(body)
        guard let length = Int32(exactly: bytes.count) else {
            throw DAVXMLError(kind: .tooLarge, message: "the body has \(bytes.count) bytes, more than the parser takes", line: nil)
        }
        _ = libraryInitialized
        cometcal_xml_silence_thread()

        let report = UnsafeMutablePointer<cometcal_xml_report>.allocate(capacity: 1)
        report.initialize(to: cometcal_xml_report())
        defer { report.deallocate() }
        report.pointee.max_depth = Int32(clamping: limits.maximumDepth)
        report.pointee.max_elements = limits.maximumElements

        guard let context = cometcal_xml_new_context(report) else {
            throw DAVXMLError(kind: .parserUnavailable, message: "the XML parser could not be created", line: nil)
        }
        defer { xmlFreeParserCtxt(context) }

        let document = bytes.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { characters in
                xmlCtxtReadMemory(context, characters, length, nil, nil, parseOptions)
            }
        }
        defer { if let document { xmlFreeDoc(document) } }

        let seen = report.pointee
        if seen.saw_doctype != 0 {
            throw DAVXMLError(kind: .doctypeRefused, message: "a document type declaration (DOCTYPE) is not accepted", line: nil)
        }
        if seen.limit_exceeded == 1 {
            throw DAVXMLError(kind: .tooDeep, message: "elements are nested more than \(limits.maximumDepth) deep", line: lineOrNil(seen.error_line))
        }
        if seen.limit_exceeded == 2 {
            throw DAVXMLError(kind: .tooManyElements, message: "the body has more than \(limits.maximumElements) elements", line: lineOrNil(seen.error_line))
        }
        guard let document, seen.has_error == 0, context.pointee.wellFormed != 0, let root = xmlDocGetRootElement(document) else {
            throw DAVXMLError(kind: .malformed, message: errorMessage(seen), line: lineOrNil(seen.error_line))
        }
        return element(from: root)
    }

    /// No network, no entity substitution, no DTD loading or validation, no relaxed limits
    /// (XML_PARSE_HUGE stays off); line numbers past 65535 kept.
    static let parseOptions = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_BIG_LINES.rawValue)

    /// How many times libxml2 asked for an external entity or DTD: each was refused. Tests read it.
    static let externalLoadsRefused = Atomic<Int>(0)

    /// libxml2's global setup, done once per process (xmlInitParser is not safe to race), and an
    /// external entity loader that refuses every load: a second wall behind the DOCTYPE refusal.
    private static let libraryInitialized: Void = {
        xmlInitParser()
        xmlSetExternalEntityLoader { _, _, _ in
            DAVXMLReader.externalLoadsRefused.add(1, ordering: .relaxed)
            return nil
        }
    }()

    private static func lineOrNil(_ line: Int32) -> Int? {
        line > 0 ? Int(line) : nil
    }

    private static func errorMessage(_ report: cometcal_xml_report) -> String {
        var copy = report.error_message
        let message = withUnsafeBytes(of: &copy) { raw -> String in
            let bytes = raw.prefix { $0 != 0 }
            return String(decoding: bytes, as: UTF8.self)
        }
        let trimmed = message.trimmingXMLSpace()
        return trimmed.isEmpty ? "the body is not well-formed XML" : trimmed
    }

    private static func element(from node: UnsafeMutablePointer<xmlNode>) -> DAVXMLElement {
        var attributes: [DAVXMLAttribute] = []
        var attribute = node.pointee.properties
        while let current = attribute {
            var value = ""
            var valueNode = current.pointee.children
            while let text = valueNode {
                if let content = text.pointee.content { value += String(cString: content) }
                valueNode = text.pointee.next
            }
            attributes.append(DAVXMLAttribute(name: DAVName(namespaceURI(current.pointee.ns), String(cString: current.pointee.name)), value: value))
            attribute = current.pointee.next
        }
        var children: [DAVXMLElement] = []
        var text = ""
        var child = node.pointee.children
        while let current = child {
            switch current.pointee.type {
            case XML_ELEMENT_NODE:
                children.append(element(from: current))
            case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
                if let content = current.pointee.content { text += String(cString: content) }
            default:
                break  // comments and processing instructions carry nothing a request means
            }
            child = current.pointee.next
        }
        return DAVXMLElement(
            name: DAVName(namespaceURI(node.pointee.ns), String(cString: node.pointee.name)),
            attributes: attributes, children: children, text: text, line: Int(xmlGetLineNo(node)))
    }

    private static func namespaceURI(_ namespace: UnsafeMutablePointer<xmlNs>?) -> String {
        guard let href = namespace?.pointee.href else { return "" }
        return String(cString: href)
    }
}

extension String {
    func trimmingXMLSpace() -> String {
        DAVXMLElement(name: DAVName("", ""), text: self).trimmedText
    }
}
