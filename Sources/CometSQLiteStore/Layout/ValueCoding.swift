import CometStore
import Foundation
import CometSchema

/// Converts typed values to SQLite values and back, per column kind.
struct ValueCoding {
    let registry: Registry

    func sqlValues(_ value: Value?, for column: ColumnLayout) -> [SQLValue] {
        var values: [SQLValue] = []
        append(value, for: column, to: &values)
        return values
    }

    /// The column's values (and its key column's) appended where a statement's values are being
    /// gathered: a record's are one array, not an array per column joined afterwards.
    func append(_ value: Value?, for column: ColumnLayout, to values: inout [SQLValue]) {
        values.append(sqlValue(value, for: column))
        guard column.keyColumn != nil else { return }
        if case .dateTime(let dateTime)? = value {
            values.append(.integer(OccurrenceKey.key(of: dateTime)))
        } else {
            values.append(.null)
        }
    }

    private func sqlValue(_ value: Value?, for column: ColumnLayout) -> SQLValue {
        guard let value else { return .null }
        switch (column.kind, value) {
        case (.bool, .bool(let flag)): return .integer(flag ? 1 : 0)
        case (.integer, .int(let number)): return .integer(Int64(number))
        case (.real, .double(let number)): return .real(number)
        case (.real, .int(let number)): return .real(Double(number))
        case (.text, .string(let text)): return .text(text)
        case (.text, .enumCase(let name)): return .text(name)
        case (.reference, .reference(let id)): return .text(id.lowercasedText)
        case (.dateTime, .dateTime(let dateTime)): return .text(dateTime.description)
        case (.text, _), (.json, _):
            let json = registry.encode(value)
            if case .string(let text) = json, column.kind == .text { return .text(text) }
            return .text(JSONWriter.compact(json))
        default:
            return .text(JSONWriter.compact(registry.encode(value)))
        }
    }

    /// Reads a column back; data that no longer fits its type is an error naming the column.
    func value(from sql: SQLValue, for column: ColumnLayout, table: String) throws -> Value? {
        let type = column.property.type.required
        do {
            switch (column.kind, sql) {
            case (_, .null): return nil
            case (.bool, .integer(let number)): return .bool(number != 0)
            case (.integer, .integer(let number)): return .int(Int(number))
            case (.real, .real(let number)): return .double(number)
            case (.real, .integer(let number)): return .double(Double(number))
            case (.reference, .text(let text)):
                guard let id = UUID(parsing: text) else { throw ValueError(.invalidUUID, "'\(text)' is not an id") }
                return .reference(id)
            case (.text, .text(let text)), (.dateTime, .text(let text)):
                return try registry.decode(.string(text), as: type)
            case (.json, .text(let text)):
                return try registry.decode(try JSONParser.parse(text), as: type)
            default:
                throw ValueError(.typeMismatch, "unexpected stored value")
            }
        } catch {
            throw StoreError(.invalidData, "stored value of \(table).\(column.column) does not fit type '\(column.property.type)': \(error)")
        }
    }
}
