import CometStore
import Foundation
import CometSchema

/// Turns a row selected with `TableLayout.selectList` into an `EntityRecord`.
struct RecordReader {
    let layout: TableLayout
    let coding: ValueCoding

    func record(from row: Row, offset: Int = 0) throws -> EntityRecord {
        guard let idText = row.text(offset), let id = UUID(parsing: idText) else {
            throw StoreError(.invalidData, "a row of \(layout.table) has no valid id")
        }
        var values: [String: Value] = [:]
        var index = offset + 1
        for column in layout.columns {
            do {
                if let value = try coding.value(from: row[index], for: column, table: layout.table) {
                    values[column.property.name] = value
                }
            } catch let error as StoreError {
                // Named by the record, so whoever reads it knows which one to mend or delete.
                throw StoreError(error.code, "record \(idText) (\(layout.entity.name.name)): \(error.message)")
            }
            index += column.keyColumn == nil ? 1 : 2
        }
        return EntityRecord(entity: layout.entity.name, id: id, values: values)
    }

    /// Bound values for INSERT/UPDATE in `selectList` order (id first).
    func sqlValues(of record: EntityRecord) -> [SQLValue] {
        var values: [SQLValue] = [.text(record.id.lowercasedText)]
        values.reserveCapacity(1 + layout.columns.count * 2)
        for column in layout.columns { coding.append(record.values[column.property.name], for: column, to: &values) }
        return values
    }
}
