import CometStore
import Foundation
import CometSchema

/// Typed values as SQLite values and back, per column kind: the neutral coding
/// (`StoredValueCoding`), with SQLite's booleans as integers.
struct ValueCoding {
    let registry: Registry
    private let stored: StoredValueCoding

    init(registry: Registry) {
        self.registry = registry
        stored = StoredValueCoding(registry: registry)
    }

    func sqlValues(_ value: Value?, for column: ColumnLayout) -> [SQLValue] {
        var values: [SQLValue] = []
        append(value, for: column, to: &values)
        return values
    }

    func append(_ value: Value?, for column: ColumnLayout, to values: inout [SQLValue]) {
        stored.append(value, for: column, to: &values, as: ValueCoding.sqlValue)
    }

    static func sqlValue(_ scalar: StoredScalar) -> SQLValue {
        switch scalar {
        case .null: return .null
        case .integer(let number): return .integer(number)
        case .real(let number): return .real(number)
        case .bool(let flag): return .integer(flag ? 1 : 0)
        case .text(let text): return .text(text)
        }
    }

    /// Reads a column back; data that no longer fits its type is an error naming the column.
    func value(from sql: SQLValue, for column: ColumnLayout, table: String) throws -> Value? {
        let scalar: StoredScalar
        switch sql {
        case .null: scalar = .null
        case .integer(let number): scalar = .integer(number)
        case .real(let number): scalar = .real(number)
        case .text(let text): scalar = .text(text)
        }
        return try stored.value(from: scalar, for: column, table: table)
    }
}
