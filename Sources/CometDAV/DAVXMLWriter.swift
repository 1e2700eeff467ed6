/// Writes XML text: the four DAV/CalDAV prefixes declared once at the root, any other namespace
/// declared on the element that uses it, text and attribute values escaped.
struct DAVXMLWriter {
    /// UTF-8, built as bytes: a multistatus of a thousand events is a megabyte of escaping.
    private(set) var output: [UInt8] = Array("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n".utf8)
    /// Characters XML 1.0 cannot carry at all (most C0 controls, U+FFFE, U+FFFF), each written
    /// as U+FFFD and counted here, so the caller can say so.
    private(set) var replacedCharacters = 0
    private var rootWritten = false

    init() {}

    /// A writer of one element inside a document written elsewhere: no XML declaration, and the
    /// root's prefixes taken as declared (the document's root declares them).
    init(fragment: Bool) {
        if fragment {
            output = []
            rootWritten = true
        }
    }

    /// Bytes a fragment writer wrote, put in as they are.
    mutating func appendWritten(_ bytes: [UInt8]) {
        output.append(contentsOf: bytes)
    }

    mutating func open(_ name: DAVName, attributes: [DAVXMLAttribute] = []) {
        append("<")
        writeName(name, attributes: attributes)
        append(">")
    }

    mutating func close(_ name: DAVName) {
        append("</")
        appendQualified(name)
        append(">")
    }

    mutating func empty(_ name: DAVName, attributes: [DAVXMLAttribute] = []) {
        append("<")
        writeName(name, attributes: attributes)
        append("/>")
    }

    mutating func element(_ name: DAVName, text: String) {
        open(name)
        appendEscaped(text)
        close(name)
    }

    /// An element from a request or built in code, children and text included.
    mutating func element(_ element: DAVXMLElement) {
        if element.children.isEmpty, element.text.isEmpty {
            empty(element.name, attributes: element.attributes)
            return
        }
        open(element.name, attributes: element.attributes)
        appendEscaped(element.text)
        for child in element.children { self.element(child) }
        close(element.name)
    }

    mutating func text(_ text: String) {
        appendEscaped(text)
    }

    private mutating func writeName(_ name: DAVName, attributes: [DAVXMLAttribute]) {
        appendQualified(name)
        if !rootWritten {
            rootWritten = true
            for (prefix, namespace) in DAVNamespace.rootPrefixes {
                append(" xmlns:\(prefix)=\"")
                appendEscaped(namespace)
                append("\"")
            }
        }
        if Self.prefix(of: name.namespace) == nil, !name.namespace.isEmpty, name.namespace != Self.xmlNamespace {
            append(" xmlns:X=\"")
            appendEscaped(name.namespace)
            append("\"")
        }
        // An attribute in a namespace of its own gets a prefix declared on this element, one per
        // namespace (A0, A1 …); the xml: namespace is predeclared and may not be bound again.
        var attributePrefixes: [String: String] = [:]
        for attribute in attributes {
            let namespace = attribute.name.namespace
            guard !namespace.isEmpty, namespace != Self.xmlNamespace, Self.prefix(of: namespace) == nil,
                  attributePrefixes[namespace] == nil else { continue }
            let prefix = "A\(attributePrefixes.count)"
            attributePrefixes[namespace] = prefix
            append(" xmlns:\(prefix)=\"")
            appendEscaped(namespace)
            append("\"")
        }
        for attribute in attributes {
            append(" ")
            let namespace = attribute.name.namespace
            if namespace.isEmpty {
                append(attribute.name.local)
            } else if namespace == Self.xmlNamespace {
                append("xml:\(attribute.name.local)")
            } else {
                append("\(Self.prefix(of: namespace) ?? attributePrefixes[namespace] ?? "A"):\(attribute.name.local)")
            }
            append("=\"")
            appendEscaped(attribute.value)
            append("\"")
        }
    }

    static let xmlNamespace = "http://www.w3.org/XML/1998/namespace"

    /// The name with its prefix, appended piece by piece: a multistatus writes ten names per
    /// event, and a string made for each was a tenth of its time.
    private mutating func appendQualified(_ name: DAVName) {
        if !name.namespace.isEmpty {
            append(name.namespace == Self.xmlNamespace ? "xml" : Self.prefix(of: name.namespace) ?? "X")
            append(":")
        }
        append(name.local)
    }

    static func prefix(of namespace: String) -> String? {
        DAVNamespace.rootPrefixes.first { $0.namespace == namespace }?.prefix
    }

    private mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { output.append(contentsOf: $0) }
    }

    /// Room for about this many bytes, so that a long multistatus is not copied as it grows.
    mutating func reserve(_ bytes: Int) {
        output.reserveCapacity(bytes)
    }

    /// Escapes for both text and double-quoted attribute values. Carriage returns are written as
    /// a character reference, or a reader would turn them into line feeds. Works on UTF-8 bytes:
    /// every byte that needs care is ASCII, apart from U+FFFE and U+FFFF (EF BF BE, EF BF BF).
    mutating func appendEscaped(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            Self.needsCare.withUnsafeBufferPointer { needsCare in
                var runStart = 0
                var index = 0
                while index < bytes.count {
                    // Most bytes need nothing: skip them by table before looking closer.
                    let byte = bytes[index]
                    guard needsCare[Int(byte)] else {
                        index += 1
                        continue
                    }
                    let replacement: StaticString?
                    var width = 1
                    switch byte {
                    case UInt8(ascii: "<"): replacement = "&lt;"
                    case UInt8(ascii: ">"): replacement = "&gt;"
                    case UInt8(ascii: "&"): replacement = "&amp;"
                    case UInt8(ascii: "\""): replacement = "&quot;"
                    case UInt8(ascii: "\r"): replacement = "&#13;"
                    case 0..<0x20:
                        replacement = "\u{FFFD}"
                        replacedCharacters += 1
                    case 0xEF where index + 2 < bytes.count && bytes[index + 1] == 0xBF && (bytes[index + 2] == 0xBE || bytes[index + 2] == 0xBF):
                        replacement = "\u{FFFD}"
                        replacedCharacters += 1
                        width = 3
                    default: replacement = nil
                    }
                    if let replacement {
                        output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                        replacement.withUTF8Buffer { output.append(contentsOf: $0) }
                        runStart = index + width
                    }
                    index += width
                }
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count]))
            }
        }
    }

    /// The bytes `appendEscaped` looks at closer: markup, quotes, C0 controls but tab and line
    /// feed, and 0xEF (the first byte of U+FFFE and U+FFFF).
    private static let needsCare: [Bool] = (0...255).map { (byte: Int) -> Bool in
        switch byte {
        case 0x09, 0x0A: false
        case 0..<0x20, 0x22, 0x26, 0x3C, 0x3E, 0xEF: true
        default: false
        }
    }
}
