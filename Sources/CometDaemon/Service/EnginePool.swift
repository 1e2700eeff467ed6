import Foundation
import Dispatch
import CometSchema
import CometStore
import CometIntents

/// An engine and the queue it runs on: an engine owns one store connection and is not
/// thread-safe, so all of its work goes through its queue.
final class EngineSlot: @unchecked Sendable {
    let queue: DispatchQueue
    private(set) var engine: IntentEngine
    /// Each piece of work on the store stops after this long (and is rolled back).
    let timeLimit: Double
    /// The text of the records the daemon's answers held, shared by all of its engines.
    private(set) var recordTexts: RecordTextCache

    init(label: String, engine: IntentEngine, timeLimit: Double, recordTexts: RecordTextCache) {
        queue = DispatchQueue(label: label)
        self.engine = engine
        self.timeLimit = timeLimit
        self.recordTexts = recordTexts
    }

    /// Runs on the slot's queue, within the time limit, and waits for the answer.
    func run<T>(_ body: (IntentEngine) throws -> T) rethrows -> T {
        try queue.sync { try engine.withTimeLimit(seconds: timeLimit) { try body(engine) } }
    }

    /// Runs on the slot's queue and writes the answer there as text, copying the text of
    /// records written before.
    func text(_ body: (IntentEngine, inout JSONText) throws -> Void) rethrows -> JSONText {
        try run { engine in
            var text = JSONText(recordTexts: recordTexts)
            try body(engine, &text)
            return text
        }
    }

    /// A new engine, for new schemas, with the texts for them (the old ones' are not theirs).
    func replace(_ engine: IntentEngine, recordTexts: RecordTextCache) {
        queue.sync {
            self.engine = engine
            self.recordTexts = recordTexts
        }
    }
}

/// Readers: several engines, each its own connection, so reads run side by side (WAL and
/// deferred read transactions never take the write lock). A read takes a free engine.
final class ReaderPool: @unchecked Sendable {
    private let lock = NSCondition()
    private var free: [EngineSlot]
    private var all: [EngineSlot]

    init(_ slots: [EngineSlot]) {
        free = slots
        all = slots
    }

    func run<T>(_ body: (IntentEngine) throws -> T) rethrows -> T {
        try withFreeSlot { try $0.run(body) }
    }

    /// `EngineSlot.text` on a free engine.
    func text(_ body: (IntentEngine, inout JSONText) throws -> Void) rethrows -> JSONText {
        try withFreeSlot { try $0.text(body) }
    }

    private func withFreeSlot<T>(_ body: (EngineSlot) throws -> T) rethrows -> T {
        lock.lock()
        while free.isEmpty { lock.wait() }
        let slot = free.removeLast()
        lock.unlock()
        defer {
            lock.lock()
            free.append(slot)
            lock.signal()
            lock.unlock()
        }
        return try body(slot)
    }

    var count: Int { all.count }

    /// Each reader's text cache (one, shared, as the daemon makes them).
    var recordTexts: [RecordTextCache] { lock.withLock { all.map(\.recordTexts) } }

    func replaceAll(recordTexts: RecordTextCache, _ make: () -> IntentEngine) {
        for slot in all { slot.replace(make(), recordTexts: recordTexts) }
    }
}
