import CometSchema
import CometIntents

/// What the records in a store are called, as people name them by voice: titles, the people
/// in them (an attendee's or organizer's name) and the places (a location's name or text).
/// Read through the registry, so another domain's records give theirs.
public struct StoreWords: Sendable, Hashable {
    public var titles: [String]
    public var people: [String]
    public var places: [String]

    public init(titles: [String] = [], people: [String] = [], places: [String] = []) {
        self.titles = titles
        self.people = people
        self.places = places
    }

    /// Every indexed record's title, and the people and places in its values.
    public static func read(_ engine: IntentEngine) throws -> StoreWords {
        try read(registry: engine.registry, records: engine.records)
    }

    /// The same, from any reader of records (a script's world).
    public static func read(registry: Registry, records: (QualifiedName) throws -> [EntityRecord]) throws -> StoreWords {
        var words = StoreWords()
        for entity in registry.allEntities where entity.kind == .indexed {
            for record in try records(entity.name) {
                let title = registry.title(of: record)
                if !title.isEmpty { words.titles.append(title) }
                for value in record.values.values { words.collect(value) }
            }
        }
        words.titles = StoreWords.unique(words.titles)
        words.people = StoreWords.unique(words.people)
        words.places = StoreWords.unique(words.places)
        return words
    }

    private mutating func collect(_ value: Value) {
        switch value {
        case .person(let person): if let name = person.name, !name.isEmpty { people.append(name) }
        case .place(let place): if let name = place.name, !name.isEmpty { places.append(name) }
        case .union(_, let inner):
            // A location said as text is a place; any other union's text is not a name.
            if case .string(let text) = inner, !text.isEmpty, text.count <= 60 { places.append(text) } else { collect(inner) }
        case .object(let properties): for inner in properties.values { collect(inner) }
        case .array(let values): for inner in values { collect(inner) }
        default: break
        }
    }

    private static func unique(_ texts: [String]) -> [String] {
        var seen = Set<String>()
        return texts.filter { seen.insert($0.lowercased()).inserted }.sorted()
    }
}
