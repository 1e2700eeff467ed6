import Foundation
import CLibical

/// A component tree parsed by libical. It owns the root and frees it in `deinit`; nodes and
/// properties borrow from it. Not Sendable: libical trees must stay on one thread.
final class LibicalTree {
    let root: OpaquePointer

    /// Parses one component's text. Nil when libical cannot build a tree at all.
    init?(parsing text: String) {
        var text = text
        let parsed = text.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { cometcal_parse($0.baseAddress, $0.count) }
        }
        guard let parsed else { return nil }
        root = parsed
    }

    init(adopting component: OpaquePointer) {
        root = component
    }

    deinit {
        icalcomponent_free(root)
    }

    var node: LibicalNode { LibicalNode(pointer: root, tree: self) }
}

/// A component inside a tree.
struct LibicalNode {
    let pointer: OpaquePointer
    let tree: LibicalTree

    var kindName: String {
        let kind = icalcomponent_isa(pointer)
        return icalcomponent_kind_to_string(kind).map { String(cString: $0) } ?? "X-UNKNOWN"
    }

    var properties: [LibicalProperty] {
        var result: [LibicalProperty] = []
        var property = icalcomponent_get_first_property(pointer, ICAL_ANY_PROPERTY)
        while let current = property {
            result.append(LibicalProperty(pointer: current, source: nil))
            property = icalcomponent_get_next_property(pointer, ICAL_ANY_PROPERTY)
        }
        return result
    }

    var children: [LibicalNode] {
        var result: [LibicalNode] = []
        var child = icalcomponent_get_first_component(pointer, ICAL_ANY_COMPONENT)
        while let current = child {
            result.append(LibicalNode(pointer: current, tree: tree))
            child = icalcomponent_get_next_component(pointer, ICAL_ANY_COMPONENT)
        }
        return result
    }

    /// The messages of libical's X-LIC-ERROR properties: values libical could not parse.
    var errors: [String] {
        properties.filter { $0.name == "X-LIC-ERROR" }.map(\.text)
    }

    /// The properties, each with the content line it came from. libical keeps the file's order,
    /// puts an X-LIC-ERROR where a line failed, and splits a list (`EXDATE:a,b`) into one property
    /// per value, so lines and properties are matched in order. Nil where they cannot be (a
    /// property libical made up), so no line is ever named wrongly.
    func properties(alignedWith lines: [ContentLine]) -> [LibicalProperty]? {
        var result = properties
        var index = 0
        for line in lines {
            let name = line.name
            let expected = LibicalNode.splitLists.contains(name) ? max(1, ComponentDecoder.splitUnescapedCommas(line.value).count) : 1
            var taken = 0
            while index < result.count, taken < expected {
                let found = result[index].name
                if found == "X-LIC-ERROR" {
                    // libical put its complaint where the line's property would be.
                    if taken == 0 {
                        result[index].source = line
                        index += 1
                        taken = 1
                    }
                    break
                }
                guard found == name else { break }
                result[index].source = line
                index += 1
                taken += 1
            }
            if taken == 0 { return nil }
        }
        return index == result.count ? result : nil
    }

    /// Properties libical turns into one property per listed value.
    static let splitLists: Set<String> = ["EXDATE", "RDATE", "CATEGORIES", "RESOURCES", "FREEBUSY"]
}

/// A property inside a tree: its name, parameters and value as text.
struct LibicalProperty {
    let pointer: OpaquePointer
    /// The name, upper-cased, read once: decoding asks every property for its name once per
    /// field of the schema (each libical call allocated, and that was much of an import).
    let name: String
    /// The content line it was read from, when known (see `LibicalNode.properties(alignedWith:)`).
    var source: ContentLine? {
        didSet { cache = ParameterCache() }
    }
    /// The parameters, parsed when first asked for and kept (copies share them).
    private var cache = ParameterCache()

    final class ParameterCache {
        var parameters: [(name: String, value: String)]?
    }

    init(pointer: OpaquePointer, source: ContentLine?) {
        self.pointer = pointer
        name = icalproperty_get_property_name(pointer).map { String(cString: $0).uppercased() } ?? ""
        self.source = source
    }

    /// Parameters in order, names upper-cased, values without quotes and with RFC 6868 escapes
    /// decoded: from the line as written where it is known (libical decodes some escapes and
    /// writes them back otherwise).
    var parameters: [(name: String, value: String)] {
        if let known = cache.parameters { return known }
        let parsed = parseParameters()
        cache.parameters = parsed
        return parsed
    }

    private func parseParameters() -> [(name: String, value: String)] {
        if let source {
            return ContentLine.parameters(of: source.head).map { ($0.name, ICalText.decodeParameter($0.value)) }
        }
        var result: [(String, String)] = []
        var parameter = icalproperty_get_first_parameter(pointer, ICAL_ANY_PARAMETER)
        while let current = parameter {
            if let raw = icalparameter_as_ical_string_r(current) {
                let text = String(cString: raw)
                free(raw)
                if let equals = text.firstIndex(of: "=") {
                    var value = String(text[text.index(after: equals)...])
                    if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
                    result.append((String(text[..<equals]).uppercased(), value))
                }
            }
            parameter = icalproperty_get_next_parameter(pointer, ICAL_ANY_PARAMETER)
        }
        return result
    }

    func parameter(_ name: String) -> String? {
        parameters.first { $0.name == name }?.value
    }

    /// The value as people read it: TEXT (and x-name values, TEXT by default) unescaped from the
    /// line as written, since libical decodes only some escapes of x-names; anything else in its
    /// iCalendar form.
    var text: String {
        guard let value = icalproperty_get_value(pointer) else { return "" }
        let kind = icalvalue_isa(value)
        // An X-LIC-ERROR stands where its line was, but its text is libical's complaint.
        if kind == ICAL_TEXT_VALUE || kind == ICAL_X_VALUE, let source, !LibicalNode.splitLists.contains(source.name), name != "X-LIC-ERROR" {
            return ICalText.unescape(source.value)
        }
        if kind == ICAL_TEXT_VALUE, let text = icalvalue_get_text(value) { return String(cString: text) }
        guard let raw = icalvalue_as_ical_string_r(value) else { return "" }
        defer { free(raw) }
        return String(cString: raw)
    }

    /// The value as the file wrote it (when the line is known), else as libical reads it.
    var writtenValue: String {
        source.map { $0.value.trimmedBlanks } ?? text
    }

    /// The property in libical's serialization, unfolded and without its line end.
    var unfoldedText: String {
        icalText.replacingOccurrences(of: "\r\n ", with: "").replacingOccurrences(of: "\r\n", with: "")
    }

    /// The whole property as iCalendar text (folded by libical), for keeping it verbatim.
    var icalText: String {
        guard let raw = icalproperty_as_ical_string_r(pointer) else { return "" }
        defer { free(raw) }
        return String(cString: raw)
    }
}
