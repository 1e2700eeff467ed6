/// Writes XML text: the four DAV/CalDAV prefixes declared once at the root, any other namespace
/// declared on the element that uses it, text and attribute values escaped.
struct DAVXMLWriter {
    private(set) var output = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
    /// Characters XML 1.0 cannot carry at all (most C0 controls, U+FFFE, U+FFFF), each written
    /// as U+FFFD and counted here, so the caller can say so.
    private(set) var replacedCharacters = 0
    private var rootWritten = false

    mutating func open(_ name: DAVName, attributes: [DAVXMLAttribute] = []) {
        output += "<"
        writeName(name, attributes: attributes)
        output += ">"
    }

    mutating func close(_ name: DAVName) {
        output += "</\(qualified(name))>"
    }

    mutating func empty(_ name: DAVName, attributes: [DAVXMLAttribute] = []) {
        output += "<"
        writeName(name, attributes: attributes)
        output += "/>"
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
        output += qualified(name)
        if !rootWritten {
            rootWritten = true
            for (prefix, namespace) in DAVNamespace.rootPrefixes {
                output += " xmlns:\(prefix)=\""
                appendEscaped(namespace)
                output += "\""
            }
        }
        if Self.prefix(of: name.namespace) == nil, !name.namespace.isEmpty {
            output += " xmlns:X=\""
            appendEscaped(name.namespace)
            output += "\""
        }
        // Attributes in a namespace of their own get a second local prefix.
        for attribute in attributes {
            output += " "
            if attribute.name.namespace.isEmpty {
                output += attribute.name.local
            } else if let prefix = Self.prefix(of: attribute.name.namespace) {
                output += "\(prefix):\(attribute.name.local)"
            } else {
                output += "xmlns:XA=\""
                appendEscaped(attribute.name.namespace)
                output += "\" XA:\(attribute.name.local)"
            }
            output += "=\""
            appendEscaped(attribute.value)
            output += "\""
        }
    }

    private func qualified(_ name: DAVName) -> String {
        if name.namespace.isEmpty { return name.local }
        return "\(Self.prefix(of: name.namespace) ?? "X"):\(name.local)"
    }

    static func prefix(of namespace: String) -> String? {
        DAVNamespace.rootPrefixes.first { $0.namespace == namespace }?.prefix
    }

    /// Escapes for both text and double-quoted attribute values. Carriage returns are written as
    /// a character reference, or a reader would turn them into line feeds.
    mutating func appendEscaped(_ text: String) {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\t", "\n": result.unicodeScalars.append(scalar)
            case _ where scalar.value < 0x20 && scalar != "\r", "\u{FFFE}", "\u{FFFF}":
                replacedCharacters += 1
                result.unicodeScalars.append("\u{FFFD}")
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "&": result += "&amp;"
            case "\"": result += "&quot;"
            case "\r": result += "&#13;"
            default: result.unicodeScalars.append(scalar)
            }
        }
        output += result
    }
}
