import Foundation

/// Where JSON goes as a value, record or outcome is written: straight into text (`JSONText`,
/// what the daemon sends), or into a `JSONValue` tree (`JSONTreeBuilder`, for the callers that
/// look inside the answer). Every shape of docs/json.md is written once, against this protocol,
/// so the text and the tree cannot disagree.
///
/// Calls follow the document's order: `beginObject`, then `key` before each member's value,
/// then `endObject`; `beginArray`, the items, `endArray`.
public protocol JSONSink {
    mutating func writeNull()
    mutating func write(_ flag: Bool)
    mutating func write(_ number: Int)
    mutating func write(_ number: Double)
    mutating func write(_ text: String)
    /// A date-time as its `description` writes it; the text sink formats it without making a string.
    mutating func write(_ dateTime: DateTimeValue)
    /// An id in lower case, as `lowercasedText` writes it.
    mutating func write(_ id: UUID)
    /// A tree made elsewhere (an interpretation, a report), written whole.
    mutating func write(_ tree: JSONValue)
    mutating func beginObject()
    mutating func key(_ name: String)
    mutating func endObject()
    mutating func beginArray()
    mutating func endArray()
    /// A record, which `writing` writes; the text sink may copy the text it wrote for an equal
    /// record before instead.
    mutating func writeRecord(_ record: EntityRecord, _ writing: (inout Self) -> Void)
}

extension JSONSink {
    public mutating func write(_ dateTime: DateTimeValue) { write(dateTime.description) }
    public mutating func write(_ id: UUID) { write(id.lowercasedText) }
    public mutating func writeRecord(_ record: EntityRecord, _ writing: (inout Self) -> Void) { writing(&self) }

    public mutating func write(_ tree: JSONValue) {
        switch tree {
        case .null: writeNull()
        case .bool(let flag): write(flag)
        case .int(let number): write(number)
        case .double(let number): write(number)
        case .string(let text): write(text)
        case .array(let items):
            beginArray()
            for item in items { write(item) }
            endArray()
        case .object(let object):
            beginObject()
            for member in object {
                key(member.key)
                write(member.value)
            }
            endObject()
        }
    }

    /// A member whose value is a string, when there is one (absent otherwise, as docs/json.md
    /// leaves out what has no value).
    public mutating func member(_ name: String, _ text: String?) {
        guard let text else { return }
        key(name)
        write(text)
    }
}

/// Builds a `JSONValue` from the calls a writer makes.
public struct JSONTreeBuilder: JSONSink {
    private enum Open { case object, array }

    // The open containers are kept in arrays of their own and changed in place: holding one
    // in an enum while appending to it copied it on every item (an event's 100,000 attendees
    // took quadratic time).
    private var open: [Open] = []
    private var objects: [JSONObject] = []
    private var keys: [String] = []
    private var arrays: [[JSONValue]] = []
    /// The finished document, once its outermost value is written.
    public private(set) var value: JSONValue = .null

    public init() {}

    private mutating func add(_ item: JSONValue) {
        switch open.last {
        case nil: value = item
        case .object?:
            // A key written twice keeps its first place, as assigning to a JSONObject does.
            objects[objects.count - 1][keys.popLast() ?? ""] = item
        case .array?:
            arrays[arrays.count - 1].append(item)
        }
    }

    public mutating func writeNull() { add(.null) }
    public mutating func write(_ flag: Bool) { add(.bool(flag)) }
    public mutating func write(_ number: Int) { add(.int(number)) }
    public mutating func write(_ number: Double) { add(.double(number)) }
    public mutating func write(_ text: String) { add(.string(text)) }
    public mutating func write(_ tree: JSONValue) { add(tree) }
    public mutating func beginObject() {
        open.append(.object)
        objects.append(JSONObject())
    }

    public mutating func key(_ name: String) { keys.append(name) }

    public mutating func endObject() {
        guard open.last == .object, let object = objects.popLast() else { return }
        open.removeLast()
        add(.object(object))
    }

    public mutating func beginArray() {
        open.append(.array)
        arrays.append([])
    }

    public mutating func endArray() {
        guard open.last == .array, let items = arrays.popLast() else { return }
        open.removeLast()
        add(.array(items))
    }

    /// The tree a writer makes.
    public static func build(_ writing: (inout JSONTreeBuilder) -> Void) -> JSONValue {
        var builder = JSONTreeBuilder()
        writing(&builder)
        return builder.value
    }
}
