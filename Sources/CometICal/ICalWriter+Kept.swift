import Foundation
import CometSchema

/// What an import keeps for export beside the fields: a subcomponent a field reads only in part
/// (a VALARM's trigger) and a line bound to the value read from it (Apple's structured location,
/// Outlook's all-day marker), each marked in the extras with the value it belongs to. Export writes
/// it back while the record still holds that value, and writes the field's own form once it does not.
extension ICalWriter {
    /// The line that marks a kept subcomponent with the value a field read from it.
    static let keptChildMarker = "X-COMETCAL-KEPT-FOR:"

    static func childKey(_ value: Value) -> String {
        guard case .union(let caseName, let payload) = value else { return "" }
        switch payload {
        case .duration(let duration): return caseName + "=" + duration.description
        case .dateTime(let dateTime): return caseName + "=" + dateTime.description
        default: return caseName
        }
    }

    /// A subcomponent as written, with the marker after its BEGIN line. `length` binds it to the
    /// event's length too (a trigger RELATED=END).
    static func markedChild(_ child: RawComponent, for value: Value, length: Int64? = nil) -> String {
        var lines = child.text.split(separator: "\r\n", omittingEmptySubsequences: true).map(String.init)
        lines.insert(keptChildMarker + childKey(value) + (length.map { ";length=\($0)" } ?? ""), at: min(1, lines.count))
        return lines.joined(separator: "\n")
    }

    /// A field value as a kept line is bound to it: a stable digest of its text, one line.
    static func valueKey(_ value: Value) -> String {
        ICalReader.stableHash(valueText(value))
    }

    static func valueText(_ value: Value) -> String {
        switch value {
        case .bool(let flag): return flag ? "true" : "false"
        case .string(let text): return text
        case .union(let name, let payload): return name + ":" + valueText(payload)
        case .place(let place):
            return [place.name ?? "", place.address ?? "", place.latitude.map { "\($0)" } ?? "", place.longitude.map { "\($0)" } ?? ""].joined(separator: "|")
        default: return "\(value)"
        }
    }

    /// The key of a binding that holds while the field has no value.
    static let absentKey = "-"

    /// Whether a kept line's binding (`field=key`) still holds for the record.
    static func holds(_ binding: String, _ record: EntityRecord) -> Bool {
        guard let field = boundField(binding) else { return false }
        return (record[field].map(valueKey) ?? absentKey) == String(binding[binding.index(after: binding.firstIndex(of: "=")!)...])
    }

    static func boundField(_ binding: String) -> String? {
        binding.firstIndex(of: "=").map { String(binding[..<$0]) }
    }

    /// The extras' own lines (a line bound to a field value only while it holds), and the kept
    /// subcomponents by their marker (marker removed).
    static func separateKeptChildren(_ extras: String?, of record: EntityRecord) -> (lines: [String], children: [(key: String, lines: [String])],
                                                                                       held: [(field: String, line: String)]) {
        guard let extras else { return ([], [], []) }
        var lines: [String] = []
        var held: [(field: String, line: String)] = []
        var children: [(key: String, lines: [String])] = []
        var current: (key: String, lines: [String])?
        let all = extras.split(separator: "\n").map(String.init)
        var index = 0
        while index < all.count {
            let line = all[index]
            if current == nil, line.hasPrefix(keptChildMarker), index + 1 < all.count, !all[index + 1].uppercased().hasPrefix("BEGIN:") {
                let binding = String(line.dropFirst(keptChildMarker.count))
                if holds(binding, record) {
                    lines.append(all[index + 1])
                    if let field = boundField(binding) { held.append((field, all[index + 1])) }
                }
                index += 2
                continue
            }
            if current == nil, line.uppercased().hasPrefix("BEGIN:"), index + 1 < all.count, all[index + 1].hasPrefix(keptChildMarker) {
                current = (String(all[index + 1].dropFirst(keptChildMarker.count)), [line])
                index += 2
                continue
            }
            if var child = current {
                child.lines.append(line)
                if line.uppercased() == "END:" + String(child.lines[0].dropFirst("BEGIN:".count)).uppercased() {
                    children.append(child)
                    current = nil
                } else {
                    current = child
                }
            } else {
                lines.append(line)
            }
            index += 1
        }
        if let current { lines += current.lines }
        return (lines, children, held)
    }
}
