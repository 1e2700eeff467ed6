import Foundation
import CometSchema

/// How a store keeps one property of an indexed entity in its table. Every store decides it
/// the same way, from the registry; only the SQL types differ (each store's `sqlType`).
public enum StoredColumnKind: Hashable, Sendable {
    case text, integer, real, bool
    /// An id of another indexed entity, with a foreign key to its table.
    case reference(table: String)
    /// RFC 9557 text plus a sortable instant key in `<column>__key` (see `OccurrenceKey`).
    case dateTime
    /// Anything structured (arrays, unions, Person, Place, transient objects): compact JSON text.
    case json
}

/// One property's column in its entity's table.
public struct StoredColumn: Hashable, Sendable {
    public let property: PropertyDefinition
    public let column: String
    public let kind: StoredColumnKind

    /// The sort and range key column of a DateTime property.
    public var keyColumn: String? { kind == .dateTime ? column + "__key" : nil }

    /// The columns of an indexed entity's table, in its properties' order (the id apart: every
    /// table keys on it). Names come from schema identifiers, which the lexer limits to [A-Za-z0-9_].
    public static func columns(of entity: EntityDefinition, registry: Registry) -> [StoredColumn] {
        entity.properties.filter { $0.name != "id" }.map { property in
            StoredColumn(property: property, column: property.name, kind: kind(of: property.type, registry: registry))
        }
    }

    /// The table of an indexed entity: `domain__Name`.
    public static func tableName(_ name: QualifiedName) -> String { "\(name.domain)__\(name.name)" }

    public static func kind(of type: TypeExpression, registry: Registry) -> StoredColumnKind {
        if type.isArray { return .json }
        switch type.base {
        case .builtin(let builtin):
            switch builtin {
            case .string, .url, .uuid, .date, .duration, .recurrence: return .text
            case .int: return .integer
            case .double: return .real
            case .bool: return .bool
            case .dateTime: return .dateTime
            case .person, .place: return .json
            }
        case .enumeration: return .text
        case .union: return .json
        case .entity(let name):
            return registry.entity(name)?.kind == .indexed ? .reference(table: tableName(name)) : .json
        }
    }
}

/// A value as a column holds it, before it is a store's own kind of SQL value.
public enum StoredScalar: Equatable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case bool(Bool)
    case text(String)
}

/// Typed values as column values and back, for every store: the same text for a date, an
/// enum case, a reference or a structured value, whatever database keeps it.
public struct StoredValueCoding: Sendable {
    public let registry: Registry

    public init(registry: Registry) {
        self.registry = registry
    }

    /// The column's value, then its key column's when it has one, appended where a statement's
    /// values are being gathered (a record's are one array, not one per column joined after).
    public func append<Target>(_ value: Value?, for column: StoredColumn, to values: inout [Target], as convert: (StoredScalar) -> Target) {
        values.append(convert(scalar(value, for: column)))
        guard column.keyColumn != nil else { return }
        if case .dateTime(let dateTime)? = value {
            values.append(convert(.integer(OccurrenceKey.key(of: dateTime))))
        } else {
            values.append(convert(.null))
        }
    }

    /// The column's own value (not its key's).
    public func scalar(_ value: Value?, for column: StoredColumn) -> StoredScalar {
        guard let value else { return .null }
        switch (column.kind, value) {
        case (.bool, .bool(let flag)): return .bool(flag)
        case (.integer, .int(let number)): return .integer(Int64(number))
        case (.real, .double(let number)): return .real(number)
        case (.real, .int(let number)): return .real(Double(number))
        case (.text, .string(let text)): return .text(text)
        case (.text, .enumCase(let name)): return .text(name)
        case (.reference, .reference(let id)): return .text(id.lowercasedText)
        case (.dateTime, .dateTime(let dateTime)): return .text(dateTime.description)
        case (.text, _):
            let json = registry.encode(value)
            if case .string(let text) = json { return .text(text) }
            return .text(JSONWriter.compact(json))
        default:
            return .text(JSONWriter.compact(registry.encode(value)))
        }
    }

    /// A column read back; data that no longer fits its type is an error naming the column.
    public func value(from scalar: StoredScalar, for column: StoredColumn, table: String) throws -> Value? {
        do {
            return try decoded(scalar, for: column)
        } catch {
            throw StoreError(.invalidData, "stored value of \(table).\(column.column) does not fit type '\(column.property.type)': \(error)")
        }
    }

    private func decoded(_ scalar: StoredScalar, for column: StoredColumn) throws -> Value? {
        switch (column.kind, scalar) {
        case (_, .null): return nil
        case (.bool, .bool(let flag)): return .bool(flag)
        case (.bool, .integer(let number)): return .bool(number != 0)
        case (.integer, .integer(let number)): return .int(Int(number))
        case (.real, .real(let number)): return .double(number)
        case (.real, .integer(let number)): return .double(Double(number))
        case (.reference, .text(let text)):
            guard let id = UUID(parsing: text) else { throw ValueError(.invalidUUID, "'\(text)' is not an id") }
            return .reference(id)
        case (.text, .text(let text)), (.dateTime, .text(let text)):
            return try registry.decode(.string(text), as: column.property.type.required)
        case (.json, .text(let text)):
            return try registry.decode(try JSONParser.parse(text), as: column.property.type.required)
        default:
            throw ValueError(.typeMismatch, "unexpected stored value")
        }
    }
}

extension StoreReader {
    /// The records that refer to `entity`'s record `id` through any reference column of the
    /// given tables, each with the property that does, table by table in the order given.
    public func records(referringTo entity: QualifiedName, id: UUID,
                        through tables: [(entity: QualifiedName, columns: [StoredColumn])]) throws -> [(record: EntityRecord, property: String)] {
        let target = StoredColumn.tableName(entity)
        var result: [(record: EntityRecord, property: String)] = []
        for table in tables {
            for column in table.columns {
                guard case .reference(let referenced) = column.kind, referenced == target else { continue }
                for record in try fetchAll(table.entity, matching: [.equals(column.property.name, .reference(id))], limit: nil) {
                    result.append((record, column.property.name))
                }
            }
        }
        return result
    }
}

extension Value {
    /// The words a value offers to search, for every store's index: text, names and addresses
    /// of people and places, and the text inside unions, objects and arrays.
    public var searchWords: String {
        switch self {
        case .string(let text): return text
        case .url(let url): return url.absoluteString
        case .person(let person): return [person.name, person.email, person.phone].compactMap { $0 }.joined(separator: " ")
        case .place(let place): return [place.name, place.address].compactMap { $0 }.joined(separator: " ")
        case .union(_, let payload): return payload.searchWords
        case .object(let properties): return properties.keys.sorted().compactMap { properties[$0]?.searchWords }.filter { !$0.isEmpty }.joined(separator: " ")
        case .array(let items): return items.map(\.searchWords).filter { !$0.isEmpty }.joined(separator: " ")
        default: return ""
        }
    }
}
