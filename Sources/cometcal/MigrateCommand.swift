import Foundation
import CometSchema
import CometStore
import CometIntents
import CometText

/// `cometcal migrate --to LOCATION`: copies the store (--db, COMETCAL_DB or the default) into
/// another, empty one, of either kind: the embedded file into PostgreSQL, or back. Then it
/// checks the copy: both stores' exports must be the same bytes, and their record and journal
/// counts the same. The source is only read.
struct MigrateCommand {
    let context: AppContext

    func run() throws -> ExitCode {
        guard let source = context.localStore else {
            throw CommandFailure(code: .usage, message: "error: migrate works on the stores themselves, not through --connect; run it without --connect")
        }
        guard let target = context.parsed.value("to"), !target.isEmpty else {
            throw CommandFailure(code: .usage, message: "error: give the store to copy into: cometcal migrate --to postgresql:///cometcal (or a new .sqlite file)")
        }
        let location = StoreLocation(parsing: target)
        if location == source.location {
            throw CommandFailure(code: .usage, message: "error: --to names the store being copied (\(source.location)); give another")
        }
        if let path = location.filePath, FileManager.default.fileExists(atPath: path) {
            throw CommandFailure(code: .usage, message: "error: \(path) exists; migrate writes a new store file (or an empty PostgreSQL database), never over one")
        }
        let destination: any OpenedStore
        do {
            destination = try StoreFactory.opener.open(location, registry: source.registry, now: context.now, creating: .fileOnly)
        } catch let error as StoreError {
            throw CommandFailure(code: error.code == .unsupportedLocation ? .usage : .ioError, message: "error: cannot open \(location): \(error.message)")
        }
        let report: StoreCopy.Report
        do {
            report = try StoreCopy.copy(from: source, to: destination)
        } catch let error as StoreError {
            if let path = location.filePath { try? FileManager.default.removeItem(atPath: path) }
            throw CommandFailure(code: error.code == .invalidData ? .dataError : .ioError, message: "error: nothing was copied: \(error.message)")
        }
        let check = try verify(source: source, destination: destination)
        if context.wantsJSON {
            context.terminal.out(JSONWriter.pretty(.object(JSONObject([
                ("from", .string(source.location.description)), ("to", .string(location.description)),
                ("records", .object(JSONObject(report.records.map { ($0.entity.description, JSONValue.int($0.count)) }))),
                ("journalEntries", .int(report.journalEntries)), ("undoneEntries", .int(report.undoneEntries)),
                ("metaEntries", .int(report.metaEntries)), ("firedAlarms", .int(report.firedAlarms)), ("snoozedAlarms", .int(report.snoozedAlarms)),
                // The source's change feed stays with it: sync clients of the copy start over.
                ("changeFeedCopied", .bool(false)),
                ("exportBytes", .int(check.bytes)), ("exportsIdentical", .bool(check.problem == nil)),
                ("problem", check.problem.map(JSONValue.string) ?? .null),
            ]))))
        } else {
            let what = report.records.map { "\(NumberText.grouped($0.count)) \(IntentEngine.noun($0.entity, count: $0.count, in: source.registry))" }
            context.terminal.out("Copied \(what.isEmpty ? "no records" : what.joined(separator: ", ")) from \(source.location) to \(location).")
            context.terminal.out("With them: \(NumberText.grouped(report.journalEntries)) undo history entries (\(report.undoneEntries) undone, to redo), \(report.metaEntries) facts kept for CalDAV clients and the alarm watch, \(report.firedAlarms) fired and \(report.snoozedAlarms) snoozed alarms.")
            if let problem = check.problem {
                context.terminal.err("error: the copy differs from the store: \(problem)")
            } else {
                context.terminal.out("Checked: both stores export the same \(NumberText.grouped(check.bytes)) bytes. Sync clients of the new store start with a full sync (its change feed begins anew).")
            }
        }
        return check.problem == nil ? .success : .dataError
    }

    /// Both stores' whole exports, byte for byte, and their journals' lengths.
    private func verify(source: any OpenedStore, destination: any OpenedStore) throws -> (bytes: Int, problem: String?) {
        let before = IntentEngine(store: source, timeZone: context.zone)
        let after = IntentEngine(store: destination, timeZone: context.zone)
        let original = try before.exportCalendar()
        let copied = try after.exportCalendar()
        if original != copied {
            let first = zip(original.utf8, copied.utf8).prefix { $0 == $1 }.count
            return (original.utf8.count, "the exports differ from byte \(first) on (\(original.utf8.count) and \(copied.utf8.count) bytes)")
        }
        let journals = try (source.readTransaction { try $0.journalHeads(limit: Int.max).count }, destination.readTransaction { try $0.journalHeads(limit: Int.max).count })
        if journals.0 != journals.1 { return (original.utf8.count, "the journals hold \(journals.0) and \(journals.1) entries") }
        return (original.utf8.count, nil)
    }
}
