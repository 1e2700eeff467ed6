import Foundation

/// Runs an `ICalReader` on a thread of its own, a bounded number of items ahead of its
/// consumer. Reading (scanning, libical's parse, decoding through the registry) is more than
/// half of an import's CPU and needs nothing from the store, so it overlaps with the saving on
/// a second core. The items arrive in the reader's order, exactly as `ICalReader.next()` gives them.
public final class ICalReadAhead {
    private let state: State
    private var local: [(item: ICalItem, bytesRead: Int)] = []
    private var position = 0
    /// Bytes the reader had read when it produced the last item taken.
    public private(set) var bytesRead = 0

    /// Starts reading at once. `reader` must not be used by anyone else from now on.
    public init(_ reader: ICalReader, capacity: Int = 256) {
        state = State(capacity: capacity)
        let state = self.state
        let owned = Owned(reader: reader)
        let thread = Thread {
            var batch: [(item: ICalItem, bytesRead: Int)] = []
            while let item = owned.reader.next() {
                batch.append((item, owned.reader.bytesRead))
                if batch.count >= 32 {
                    guard state.hand(over: &batch) else { return }
                }
            }
            _ = state.hand(over: &batch)
            state.finish()
        }
        thread.name = "cometcal-ical-read-ahead"
        thread.start()
    }

    deinit {
        // A consumer that stops early (a failed import) lets the reading thread end too.
        state.cancel()
    }

    public func next() -> ICalItem? {
        if position == local.count {
            local.removeAll(keepingCapacity: true)
            position = 0
            state.take(into: &local)
            if local.isEmpty { return nil }
        }
        let (item, bytes) = local[position]
        position += 1
        bytesRead = bytes
        return item
    }

    /// The reader, handed to the reading thread and used by it alone.
    private final class Owned: @unchecked Sendable {
        let reader: ICalReader
        init(reader: ICalReader) { self.reader = reader }
    }

    /// The items between the two threads, under one condition variable.
    private final class State: @unchecked Sendable {
        private let condition = NSCondition()
        private let capacity: Int
        private var pending: [(item: ICalItem, bytesRead: Int)] = []
        private var finished = false
        private var cancelled = false

        init(capacity: Int) { self.capacity = capacity }

        /// Appends a batch, waiting while the consumer is a full buffer behind; false once cancelled.
        func hand(over batch: inout [(item: ICalItem, bytesRead: Int)]) -> Bool {
            condition.lock()
            defer { condition.unlock() }
            while pending.count >= capacity, !cancelled { condition.wait() }
            guard !cancelled else { return false }
            pending.append(contentsOf: batch)
            batch.removeAll(keepingCapacity: true)
            condition.broadcast()
            return true
        }

        func finish() {
            condition.lock()
            finished = true
            condition.broadcast()
            condition.unlock()
        }

        func cancel() {
            condition.lock()
            cancelled = true
            condition.broadcast()
            condition.unlock()
        }

        /// Moves everything pending into `items`, waiting until there is something or the reading is over.
        func take(into items: inout [(item: ICalItem, bytesRead: Int)]) {
            condition.lock()
            defer { condition.unlock() }
            while pending.isEmpty, !finished { condition.wait() }
            swap(&items, &pending)
            condition.broadcast()
        }
    }
}
