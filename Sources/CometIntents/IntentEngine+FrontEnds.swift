import Foundation
import CometSchema
import CometStore

/// What front ends ask the engine besides intents: how to name records and kinds of records.
extension IntentEngine {
    /// How a record is named in lists: its title and what tells it apart (an event's time).
    public func describe(_ record: EntityRecord) -> Candidate {
        (try? store.readTransaction { Presenter(registry: registry, transaction: $0, timeZone: timeZone, now: clock()).candidate(record) })
            ?? Candidate(id: record.id, title: registry.title(of: record), subtitle: nil)
    }

    /// "event" or "events": what an entity is called (its `@display` name), for a count.
    public func noun(_ entity: QualifiedName, count: Int) -> String {
        let noun = Presenter.noun(entity, in: registry)
        return count == 1 ? noun : noun + "s"
    }

    /// Reads one record (for front ends that show what a reference points at).
    public func record(_ entity: QualifiedName, id: UUID) throws -> EntityRecord? {
        try store.readTransaction { try $0.fetch(entity, id: id) }
    }
}
