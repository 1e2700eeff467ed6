/// Where an annotation may be written.
enum AnnotationTarget: String, Sendable, CaseIterable {
    case entity, property, enumeration = "enum", enumCase = "enum case", union, unionCase = "union case", intent, parameter

    var plural: String {
        switch self {
        case .property: return "properties"
        case .entity: return "entities"
        case .enumeration: return "enums"
        case .enumCase: return "enum cases"
        case .union: return "unions"
        case .unionCase: return "union cases"
        case .intent: return "intents"
        case .parameter: return "parameters"
        }
    }
}

/// The kinds of literal an annotation argument accepts.
enum AnnotationArgumentKind: String, Sendable {
    case string = "a string"
    case name = "a name"
    /// Any literal: a string, a number, `true`/`false`, or a name (an enum case).
    case literal = "a value"
}

/// The annotations the language knows. Layers read them from the registry; the checker only
/// makes sure they are spelled right, placed right and given the right arguments.
struct AnnotationSpec: Sendable {
    let name: String
    let targets: Set<AnnotationTarget>
    /// Positional arguments accepted, in order; the first `requiredPositional` must be present.
    let positional: [AnnotationArgumentKind]
    let requiredPositional: Int
    let labelled: [String: AnnotationArgumentKind]
    let repeatable: Bool
    let summary: String
    /// The last positional kind may be repeated (`@spoken("only this one", "just this one")`).
    var variadic = false
    /// Labels not listed are accepted as any literal (a phrase's constants: `done: true`); the
    /// checker of the annotation decides what they may name.
    var openLabels = false

    static let all: [AnnotationSpec] = [
        AnnotationSpec(
            name: "ical", targets: [.entity, .property, .enumCase, .unionCase],
            positional: [.string], requiredPositional: 0,
            labelled: ["param": .string, "value": .string, "whenTrue": .string, "whenFalse": .string, "related": .string, "alias": .string],
            repeatable: false,
            summary: "the iCalendar component, property, parameter (param:) or value this maps to; alias: another property read on import when the first is absent"),
        AnnotationSpec(name: "title", targets: [.property], positional: [], requiredPositional: 0, labelled: [:], repeatable: false,
                       summary: "the property that names an entity in lists and dialogs"),
        AnnotationSpec(name: "subtitle", targets: [.property], positional: [], requiredPositional: 0, labelled: [:], repeatable: false,
                       summary: "the property shown under the title"),
        AnnotationSpec(name: "searchable", targets: [.property], positional: [], requiredPositional: 0, labelled: [:], repeatable: false,
                       summary: "full-text search indexes this property"),
        AnnotationSpec(name: "unique", targets: [.property], positional: [], requiredPositional: 0, labelled: [:], repeatable: false,
                       summary: "no two records hold the same value (text compared ignoring case and accents)"),
        AnnotationSpec(name: "marksDefault", targets: [.property], positional: [], requiredPositional: 0, labelled: [:], repeatable: false,
                       summary: "the Bool property that marks the default record of its kind (the first one until another is made so)"),
        AnnotationSpec(name: "display", targets: [.entity, .property, .enumCase, .unionCase, .parameter, .intent],
                       positional: [.string], requiredPositional: 1, labelled: [:], repeatable: false,
                       summary: "how people call this in dialogs and help (\"needs action\")"),
        AnnotationSpec(name: "prompt", targets: [.parameter], positional: [.string], requiredPositional: 1, labelled: [:], repeatable: false,
                       summary: "the question asked when this parameter is missing"),
        AnnotationSpec(name: "phrase", targets: [.intent], positional: [.string], requiredPositional: 1, labelled: ["clear": .name], repeatable: true,
                       summary: "a phrase the conversation layer matches, with {parameter} slots; labelled arguments bind constants (done: true) and clear: names a parameter the phrase clears",
                       openLabels: true),
        AnnotationSpec(name: "role", targets: [.parameter], positional: [.name], requiredPositional: 1, labelled: [:], repeatable: false,
                       summary: "what a parameter means to the engine and the conversation: occurrence, span, text (search words), from or to (a search range)"),
        AnnotationSpec(name: "question", targets: [.property], positional: [.string], requiredPositional: 1,
                       labelled: ["kind": .name, "only": .name, "answer": .string, "none": .string], repeatable: true,
                       summary: "a question the conversation answers with this property, {} standing for the entity (\"where is {}\"); kind: mailto lists people's addresses as a mailto: link; only: a case of an enum of the items (\"who declined {}\", only: declined) lists only the items in that case, said with answer: and none:"),
        AnnotationSpec(name: "answer", targets: [.property], positional: [.string], requiredPositional: 1, labelled: ["none": .string], repeatable: false,
                       summary: "how the conversation answers this property's questions, with {title}, {value} and {count}; none: the answer when it has no value"),
        AnnotationSpec(name: "reply", targets: [.intent], positional: [], requiredPositional: 0,
                       labelled: ["done": .string, "confirm": .string, "cancelled": .string], repeatable: false,
                       summary: "the intent's own sentences for its outcomes, with {property} slots filled from the record"),
        AnnotationSpec(name: "spoken", targets: [.enumCase], positional: [.string], requiredPositional: 1, labelled: [:], repeatable: false,
                       summary: "other words people use for this case (\"just this one\"), understood in answers and phrases",
                       variadic: true),
        AnnotationSpec(name: "verbs", targets: [.intent], positional: [.string], requiredPositional: 1, labelled: ["reminder": .literal, "free": .literal], repeatable: true,
                       summary: "words people use to ask for this intent (\"move\", \"push back\", \"get rid of\"), one or more per string; the conversation's statistical reader learns from them, with the phrases; reminder: true marks verbs that ask to be reminded (\"remind me to\"), which set the parameter marked @reminder; free: true marks a search's verbs that ask whether the time is free (\"am i free\"), answered yes or no with what is in the way",
                       variadic: true),
        AnnotationSpec(name: "reminder", targets: [.parameter], positional: [.string], requiredPositional: 1, labelled: ["said": .string], repeatable: false,
                       summary: "on an intent's alarm parameter (an Alarm union with a @leadTime duration case, or an array of it): the alarm a request said with a reminder verb sets, as an ISO 8601 duration from the start (\"PT0S\", \"-PT15M\"); said: the sentence added to the reply"),
        AnnotationSpec(name: "nouns", targets: [.entity], positional: [.string], requiredPositional: 1, labelled: [:], repeatable: true,
                       summary: "what people call a record of this kind (\"meeting\", \"appointment\"): read as the kind, not as words of a title",
                       variadic: true),
        AnnotationSpec(name: "words", targets: [.property], positional: [.string], requiredPositional: 1, labelled: [:], repeatable: true,
                       summary: "what people call this property in a request (\"place\", \"venue\" for a location)",
                       variadic: true),
        AnnotationSpec(name: "color", targets: [.property], positional: [], requiredPositional: 0, labelled: [:], repeatable: false,
                       summary: "a String property that holds a CSS colour (teal, #3478F6, #3478F6FF); intents that set it refuse anything else"),
        AnnotationSpec(name: "nonBlank", targets: [.property], positional: [], requiredPositional: 0, labelled: [:], repeatable: false,
                       summary: "a String property that must say something: intents that set it refuse an empty value or one of only spaces"),
        AnnotationSpec(name: "defaultLength", targets: [.property], positional: [.string], requiredPositional: 1, labelled: [:], repeatable: false,
                       summary: "on the end of an entity with a start (the DateTime mapped to DTEND): how long a new record lasts when it is given a timed start and no end (\"PT1H\")"),
        AnnotationSpec(name: "leadTime", targets: [.unionCase], positional: [], requiredPositional: 0, labelled: [:], repeatable: false,
                       summary: "a duration case people give without a sign counts back from the start (15m is fifteen minutes before; 5m after and +5m count forward)"),
        AnnotationSpec(name: "confirm", targets: [.intent], positional: [], requiredPositional: 0, labelled: ["when": .name], repeatable: false,
                       summary: "ask before performing; with when: only if the target has that property"),
        AnnotationSpec(name: "alarmAction", targets: [.intent], positional: [.name], requiredPositional: 1, labelled: [:], repeatable: false,
                       summary: "on an intent that opens an entity with alarms (VALARM): what it does to the alarms of one occurrence instead of opening it. snooze: a one-shot alarm at now plus the intent's Duration parameter, kept until it fires; dismiss: the alarms of that occurrence that have not gone off are marked fired, so none does. The occurrence is the @role(occurrence) parameter, else the one whose alarm went off last, else the next with an alarm to come"),
        AnnotationSpec(name: "undoable", targets: [.intent], positional: [], requiredPositional: 0, labelled: [:], repeatable: false,
                       summary: "the engine records the inverse so the intent can be undone"),
        AnnotationSpec(name: "target", targets: [.parameter], positional: [], requiredPositional: 0, labelled: [:], repeatable: false,
                       summary: "the parameter naming the entity an update, delete or open acts on"),
    ]

    static let byName: [String: AnnotationSpec] = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })
}
