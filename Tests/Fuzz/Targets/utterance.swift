import Foundation
import CometSchema
import CometStore
import CometSQLiteStore
import CometIntents
import CometConversation

/// Utterance understanding with a dialog state: each line of the input is one turn of one
/// conversation on a small seeded store, so questions, answers, corrections ("actually 11:30")
/// and confirmations are reached with what came before.
nonisolated(unsafe) let conversationEngine: IntentEngine = {
    let store = try! SQLiteStore(path: FuzzSupport.scratch.appendingPathComponent("talk.sqlite").path, registry: FuzzSupport.registry)
    let engine = IntentEngine(store: store, timeZone: TimeZone(identifier: "Europe/Berlin")!, clock: { Date(timeIntervalSince1970: 1_781_082_000) })
    let seed = """
        BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//fuzz//EN\r\nX-WR-CALNAME:Home\r\n\
        BEGIN:VEVENT\r\nUID:picnic@fuzz\r\nDTSTAMP:20260601T000000Z\r\nDTSTART;TZID=Europe/Berlin:20260613T120000\r\nDTEND;TZID=Europe/Berlin:20260613T150000\r\nSUMMARY:Picnic\r\nLOCATION:Tempelhofer Feld\r\nATTENDEE;CN=Ada:mailto:ada@example.org\r\nEND:VEVENT\r\n\
        BEGIN:VEVENT\r\nUID:standup@fuzz\r\nDTSTAMP:20260601T000000Z\r\nDTSTART;TZID=Europe/Berlin:20260601T093000\r\nDURATION:PT15M\r\nRRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR\r\nSUMMARY:Standup\r\nEND:VEVENT\r\n\
        END:VCALENDAR\r\n
        """
    let file = FuzzSupport.scratch.appendingPathComponent("seed.ics")
    try! seed.write(to: file, atomically: true, encoding: .utf8)
    let handle = FileHandle(forReadingAtPath: file.path)!
    _ = engine.importCalendars([ImportSource(name: "seed.ics", handle: handle, registry: FuzzSupport.registry)])
    return engine
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzUtterance(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let conversation = Conversation(engine: conversationEngine, now: Date(timeIntervalSince1970: 1_781_082_000), timeZone: TimeZone(identifier: "Europe/Berlin")!)
    for line in FuzzSupport.text(data, size).split(separator: "\n", omittingEmptySubsequences: false).prefix(12) {
        _ = conversation.say(String(line))
    }
    return 0
}
