import Foundation
import CometSchema
import CometStore
import CometICal

/// The vdir layout, as vdirsyncer writes it and khal reads it: a folder per calendar, an
/// iCalendar file per event (the series with its overrides), and metadata files in the folder.
public enum Vdir {
    /// A calendar folder's metadata files, each holding one calendar property as plain UTF-8
    /// text; the property is named as RFC 7986 names it, and the schema's `@ical` mapping (with
    /// its aliases) says which field holds it.
    public static let metadataFiles: [(file: String, property: String)] = [("displayname", "NAME"), ("color", "COLOR"), ("description", "DESCRIPTION")]

    /// Whether a colour is written as the vdir `color` file asks: `#RRGGBB`.
    static func isHexColour(_ text: String) -> Bool {
        text.utf8.count == 7 && text.hasPrefix("#") && text.dropFirst().allSatisfy(\.isHexDigit)
    }

    /// Names longer than this (in bytes) are shortened, well under the 255 bytes a file name
    /// may have.
    static let longestName = 200

    /// A file or folder name for any text, the same every time and different for different
    /// texts: ASCII letters, digits and `_ . - + @` stay, every other byte of its UTF-8 becomes
    /// `%XX` (so `/`, spaces and accents cannot reach the file system, and a leading `.` cannot
    /// hide it). A name longer than 200 bytes keeps its first part and ends with `~` and a hash of
    /// the whole text (`~` is otherwise always encoded, so this cannot meet a plain name).
    public static func safeName(_ text: String) -> String {
        var name = ""
        for byte in text.utf8 {
            let isPlain = (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x5F || byte == 0x2D || byte == 0x2B || byte == 0x40 || (byte == 0x2E && !name.isEmpty)
            name += isPlain ? String(UnicodeScalar(byte)) : String(format: "%%%02X", byte)
        }
        if name.isEmpty { return "%" }
        guard name.utf8.count > longestName else { return name }
        var kept = String(name.prefix(longestName - 20))
        // Never end inside a %XX.
        if let percent = kept.suffix(2).firstIndex(of: "%") { kept = String(kept[..<percent]) }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return kept + "~" + String(format: "%016llx", hash)
    }

    /// The VCALENDAR a calendar folder's metadata stands for (`metadata` by file name; the title
    /// is always given: the displayname file's text, else the folder's name), to be imported
    /// before the folder's files, so that its properties are read by the same schema mapping as
    /// any file's calendar properties.
    public static func calendarHeader(title: String, metadata: [String: String], registry: Registry) -> String {
        var properties: [(name: String, text: String)] = []
        for (file, property) in metadataFiles {
            let text = file == "displayname" ? title : metadata[file]
            if let text, !text.isEmpty { properties.append((property, text)) }
        }
        return ICalWriter(registry: registry).calendarHeader(properties)
    }
}

/// What `export --vdir` writes: a folder per calendar, each with its metadata files and a file
/// per event.
public struct VdirExport: Sendable {
    public struct File: Sendable {
        public let name: String
        public let text: String

        public init(name: String, text: String) {
            self.name = name
            self.text = text
        }
    }

    public struct Collection: Sendable {
        public let folder: String
        public let title: String
        public let metadata: [File]
        public let items: [File]

        public init(folder: String, title: String, metadata: [File], items: [File]) {
            self.folder = folder
            self.title = title
            self.metadata = metadata
            self.items = items
        }
    }

    public let collections: [Collection]
    /// What the layout cannot hold and was left out, said once each.
    public let warnings: [String]

    public init(collections: [Collection], warnings: [String]) {
        self.collections = collections
        self.warnings = warnings
    }
}

extension IntentEngine {
    /// Every calendar as a vdir folder (in the order of their titles, then ids; empty calendars
    /// too), each event with its overrides as one file named after its UID.
    public func exportVdir() throws -> VdirExport {
        try store.readTransaction { transaction in
            guard let calendarEntity else { throw IntentError(.notSupported, "no entity maps VCALENDAR, so there are no calendars to make folders of") }
            let writer = ICalWriter(registry: registry)
            var records: [EntityRecord] = []
            for entity in exportedEntities { records += try transaction.fetchAll(entity.name, matching: [], limit: nil) }
            var warnings: [String] = []
            var recordsOf: [UUID: [EntityRecord]] = [:]
            for group in try byCalendar(records, transaction: transaction) {
                guard let calendar = group.calendar else {
                    warnings.append("\(group.records.count) record\(group.records.count == 1 ? " is" : "s are") on no calendar; a vdir holds events in calendar folders, so \(group.records.count == 1 ? "it is" : "they are") not exported")
                    continue
                }
                recordsOf[calendar.id] = group.records
            }
            let metadataProperties = Vdir.metadataFiles.map { file in
                (file.file, calendarEntity.properties.first { $0.icalName == file.property || $0.ical?.string("alias")?.uppercased() == file.property })
            }
            var collections: [VdirExport.Collection] = []
            for calendar in inTitleOrder(try transaction.fetchAll(calendarEntity.name, matching: [], limit: nil)) {
                let title = registry.title(of: calendar)
                var metadata: [VdirExport.File] = []
                for (file, property) in metadataProperties {
                    guard let property, case .string(let text)? = calendar[property.name], !text.isEmpty else { continue }
                    metadata.append(.init(name: file, text: text))
                    if file == "color", !Vdir.isHexColour(text) {
                        // Kept as it is, so that an import gives the same calendar back.
                        warnings.append("calendar '\(title)': its colour '\(text)' is written to the color file as it is, though the vdir format asks for #RRGGBB (khal ignores it, with a warning)")
                    }
                }
                let held = Set(metadataProperties.compactMap { $0.1?.name })
                for property in calendarEntity.properties where property.icalName != nil && !held.contains(property.name) && calendar[property.name] != nil {
                    let what = property.icalName == "*" ? "its kept calendar properties" : property.icalName ?? property.name
                    warnings.append("calendar '\(title)': \(what) cannot go into a vdir (a folder holds only \(Vdir.metadataFiles.map(\.file).joined(separator: ", "))); left out")
                }
                var series: [String: [EntityRecord]] = [:]
                for record in recordsOf[calendar.id] ?? [] {
                    let key = registry.entity(record.entity).flatMap { uid(of: record, entity: $0) } ?? record.id.lowercasedText
                    series[key, default: []].append(record)
                }
                var items: [VdirExport.File] = []
                do {
                    for (key, members) in series {
                        items.append(.init(name: Vdir.safeName(key) + ".ics", text: try writer.document(calendar: nil, records: members)))
                    }
                } catch let error as ICalWriter.WriteError {
                    throw IntentError(.invalidValue, error.message)
                }
                items.sort { $0.name < $1.name }
                collections.append(.init(folder: Vdir.safeName(title), title: title, metadata: metadata, items: items))
            }
            return VdirExport(collections: collections, warnings: warnings)
        }
    }
}
