import Foundation
import CometSchema
import CometStore
import CometSQLiteStore
import CometIntents

/// The whole import path into a temporary store: all or nothing, every time, and the store
/// passes SQLite's integrity check afterwards (checked every 500 inputs).
nonisolated(unsafe) let importStore = try! SQLiteStore(path: FuzzSupport.scratch.appendingPathComponent("import.sqlite").path, registry: FuzzSupport.registry)
nonisolated(unsafe) let importEngine = IntentEngine(store: importStore, timeZone: TimeZone(identifier: "Europe/Berlin")!,
                                                    clock: { Date(timeIntervalSince1970: 1_781_082_000) })
nonisolated(unsafe) var imports = 0

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImport(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let file = FuzzSupport.scratch.appendingPathComponent("input.ics")
    _ = FileManager.default.createFile(atPath: file.path, contents: Data(bytes: data, count: size))
    guard let handle = FileHandle(forReadingAtPath: file.path) else { return 0 }
    defer { try? handle.close() }
    _ = importEngine.importCalendars([ImportSource(name: "fuzz.ics", handle: handle, registry: FuzzSupport.registry)],
                                     options: ImportOptions(skipInvalid: size % 2 == 0))
    imports += 1
    if imports % 500 == 0 {
        if let problems = try? importStore.integrityProblems() { fatalError("the store fails its integrity check: \(problems)") }
    }
    return 0
}
