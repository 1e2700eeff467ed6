import Foundation
import CometSchema

extension Understander {
    /// Words that introduce the new value of a time ("move it to 3pm", "push it until Friday").
    static let newTimeLinks: Set<String> = ["to", "until", "till", "til", "by", "for", "into", "instead"]
    /// Words before a description's words that say which match is meant.
    static let nextWords: Set<String> = ["next", "upcoming", "following"]
    static let lastWords: Set<String> = ["last", "previous", "latest", "most recent"]
    static let allWords: Set<String> = ["all", "every", "everything", "both", "each"]

    /// The request or question a statistical frame means, built as the phrase reader builds
    /// one: the same slots, mentions and time resolutions. Nil when the frame cannot make one
    /// (a class the schemas no longer have, a time that does not fit).
    func reading(_ frame: StatisticalFrame, _ words: Utterance) -> Reading? {
        let read = draftReading(frame, words)
        guard case .request(var draft)? = read else { return read }
        draft.unusedTimes = unusedTimes(frame, words, draft: draft)
        return .request(draft)
    }

    private func draftReading(_ frame: StatisticalFrame, _ words: Utterance) -> Reading? {
        if frame.label == TrainingSentences.noneLabel { return nil }
        if frame.label.hasPrefix("?") {
            return question(frame, words)
        }
        guard let intent = registry.allIntents.first(where: { $0.name.description == frame.label }), let action = intent.action else { return nil }
        var draft = Draft(intent: intent, slots: [:], timeParameter: nil)
        let entity = intent.entity.flatMap(registry.entity)
        switch action {
        case .create where entity.map({ namedProperty(words, entity: $0, intent: intent) != nil }) ?? false:
            // "set the location of the test to Stand 7": a property of a record said by name is a change.
            guard let update = registry.allIntents.first(where: { $0.action == .update && $0.entity == intent.entity }) else { return nil }
            return reading(frame.relabelled(update.name.description), words)
        case .create:
            guard let entity else { return nil }
            let reminder = language.reminderVerb(of: intent.name, in: words.keys)
            if let reminder, let change = reminderOnExisting(reminder, frame, words, intent: intent, entity: entity) { return .request(change) }
            if let reminder { setReminder(intent, said: words[reminder], into: &draft) }
            if let title = entity.titleProperty, intent.parameter(title.name) != nil,
               let said = titleAfter(reminder, frame, words)
                   ?? (titleNamed(frame, words) ?? titleRange(frame, words, entity: entity.name) ?? titleAfterVerb(intent, frame, words, entity: entity.name))
                       .map({ words[droppingContainer($0, words, entity: entity.name)] }),
               let value = value(said, type: title.type) {
                draft.slots[title.name] = .value(value)
                draft.sourceWords[title.name] = said
            } else if let kind = kindWords(words, entity: entity.name, times: frame.times) {
                // "set up an appointment": the kind is said, the title is asked for.
                draft.kindWords = kind
            }
            setTimes(frame.times, words, intent: intent, entity: entity, into: &draft)
            setPlace(frame, words, intent: intent, into: &draft)
        case .update:
            let frame = splittingMoves(frame, words)
            let valueSpan = newTimeSpan(frame, words) ?? bareNewTime(words, after: frame)
            let constraints = frame.times.filter { $0 != valueSpan }
            if let target = intent.targetParameter, case .entity(let name) = target.type.base {
                if let mention = description(frame, words, times: constraints, entity: name) {
                    draft.slots[target.name] = .mention(mention.mention)
                    draft.sourceWords[target.name] = mention.words
                }
            }
            if let valueSpan, let entity, let start = entity.temporalFields?.start ?? Understander.firstTime(of: intent), let parameter = intent.parameter(start) {
                // Read alone, or after the verb ("push it" + "back an hour").
                let lead = (words.words.first?.key).map { $0 + " it" } ?? ""
                if case .duration(let duration) = valueSpan.resolution {
                    // "postpone the lunch by a week", "push back the briefing 2 hours": later,
                    // unless the words say earlier.
                    let earlier = words.keys.contains { ["earlier", "forward", "sooner", "up"].contains($0) }
                    let signed = DurationValue(isNegative: earlier, weeks: duration.weeks, days: duration.days, hours: duration.hours,
                                               minutes: duration.minutes, seconds: duration.seconds)
                    draft.slots[start] = .time(.shift(.by(signed)))
                    draft.sourceWords[start] = words[valueSpan.range]
                    draft.timeParameter = start
                } else if let slot = readSlot(words[valueSpan.range], parameter: parameter, intent: intent, lead: lead) {
                    draft.slots[start] = slot
                    draft.sourceWords[start] = words[valueSpan.range]
                    draft.timeParameter = start
                }
            }
            if let entity, let named = namedProperty(words, entity: entity, intent: intent) {
                // "set the location of the test to Stand 7": the words after the last "to" are
                // the property's new value; "take the location off the test" clears it.
                setNamed(named, frame: frame, words, intent: intent, into: &draft)
            } else {
                setPlace(frame, words, intent: intent, into: &draft)
                if let range = frame.spans(.value).last, valueSpan.map({ !$0.range.overlaps(range) }) ?? true,
                   let entity, let title = entity.titleProperty, intent.parameter(title.name) != nil,
                   time(words[range].text) == nil, let value = value(words[range], type: title.type) {
                    draft.slots[title.name] = .value(value)
                    draft.sourceWords[title.name] = words[range]
                }
            }
        case .open where showsMany(words, entity: intent.entity):
            // "show my upcoming events": more than one is a search.
            guard let entity = intent.entity, let search = registry.allIntents.first(where: { $0.action == .search && $0.entity == entity }) else { return nil }
            return reading(frame.relabelled(search.name.description), words)
        case .delete, .open:
            guard let target = intent.targetParameter, case .entity(let name) = target.type.base else { return nil }
            if let mention = description(frame, words, times: frame.times, entity: name) {
                draft.slots[target.name] = .mention(mention.mention)
                draft.sourceWords[target.name] = mention.words
            }
        case .search:
            draft.asksFree = language.asksFree(intent.name, in: words.keys)
            if let text = intent.parameter(role: .text), let entity {
                let ranges = frame.spans(.name) + frame.spans(.person)
                let nouns = language.nounKeys(entity.name)
                let said = ranges.sorted { $0.lowerBound < $1.lowerBound }.flatMap { words.words[$0] }
                    .filter { !nouns.contains($0.key) && !MentionReader.determiners.contains($0.key) && !Understander.allWords.contains($0.key) }
                if !said.isEmpty {
                    draft.slots[text.name] = .value(.string(said.map(\.text).joined(separator: " ")))
                    draft.sourceWords[text.name] = Utterance(words: said)
                }
                // The words that say the kind are part of what the request is about, shown with it.
                draft.kindWords = kindWords(words, entity: entity.name, times: frame.times)
            }
            if let from = intent.parameter(role: .from), let span = combined(frame.times, words) {
                if let slot = readSlot(span.words, parameter: from, intent: intent) {
                    draft.slots[from.name] = slot
                    draft.sourceWords[from.name] = span.words
                }
            } else if let from = intent.parameter(role: .from), let next = words.words.firstIndex(where: { Understander.nextWords.contains($0.key) && $0.key == "next" }) {
                // "what's my next meeting": the first from now, over the year ahead.
                let now = DateTimeValue.utc(parser.now)
                draft.slots[from.name] = .time(.range(start: now, end: DateTimeValue.utc(parser.now.addingTimeInterval(366 * 86_400))))
                draft.sourceWords[from.name] = words[next..<(next + 1)]
                draft.nextOnly = true
            }
        }
        return .request(draft)
    }

    var language: DeclaredLanguage { model.language }

    /// The property a change names by its declared words ("the location of", "the note on"),
    /// with where the words are; the title and time properties are named by other means.
    private func namedProperty(_ words: Utterance, entity: EntityDefinition, intent: IntentDefinition) -> (parameter: ParameterDefinition, range: Range<Int>)? {
        let keys = words.keys
        for (property, lists) in (language.propertyWords[entity.name] ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard let parameter = intent.parameter(property), !parameter.isTarget, parameter.role == nil,
                  property != entity.temporalFields?.start, property != entity.titleProperty?.name else { continue }
            for list in lists.sorted(by: { $0.count > $1.count }) {
                for start in keys.indices where start > 0 && start + list.count < keys.count && ["the", "its"].contains(keys[start - 1])
                    && Array(keys[start..<(start + list.count)]) == list && ["of", "for", "on", "off", "from", "to"].contains(keys[start + list.count]) {
                    return (parameter, (start - 1)..<(start + list.count + 1))
                }
            }
        }
        return nil
    }

    private func setNamed(_ named: (parameter: ParameterDefinition, range: Range<Int>), frame: StatisticalFrame, _ words: Utterance,
                          intent: IntentDefinition, into draft: inout Draft) {
        let keys = words.keys
        guard let link = keys.indices.last(where: { $0 > named.range.upperBound && keys[$0] == "to" }), link + 1 < keys.count else {
            if !named.parameter.isRequired && ["off", "from"].contains(keys[named.range.upperBound - 1]) {
                draft.slots[named.parameter.name] = .cleared
                draft.sourceWords[named.parameter.name] = words[named.range]
            }
            return
        }
        let said = words[(link + 1)..<keys.count]
        if let slot = readSlot(said, parameter: named.parameter, intent: intent) {
            draft.slots[named.parameter.name] = slot
            draft.sourceWords[named.parameter.name] = said
            // The words between are the record's: "the location of [the rocket engine test] to …".
            if let target = intent.targetParameter, case .entity(let entity) = target.type.base, link > named.range.upperBound {
                let mentionWords = words[named.range.upperBound..<link]
                if let mention = mention(mentionWords, of: entity) {
                    draft.slots[target.name] = .mention(mention)
                    draft.sourceWords[target.name] = mentionWords
                }
            }
        }
    }

    /// "remind me to call the bank at 4": the alarm the schema's `@reminder` parameter sets.
    private func setReminder(_ intent: IntentDefinition, said: Utterance, into draft: inout Draft) {
        guard let parameter = intent.parameters.first(where: { $0.annotations.contains(named: "reminder") }),
              let annotation = parameter.annotations.first(named: "reminder"), let offset = annotation.firstString.flatMap(DurationValue.init(parsing:)),
              case .union(let unionName) = parameter.type.base, let union = registry.union(unionName),
              let durationCase = union.cases.first(where: { $0.type.base == .builtin(.duration) }) else { return }
        let alarm = Value.union(durationCase.name, .duration(offset))
        draft.slots[parameter.name] = .value(parameter.type.isArray ? .array([alarm]) : alarm)
        draft.sourceWords[parameter.name] = said
        draft.saidAfter = annotation.string("said")
    }

    /// "a new event named Book Club saturday at 7pm", "a task: call the plumber": after a
    /// naming word (or a pause after the kind), the title is every word up to the first time.
    private func titleNamed(_ frame: StatisticalFrame, _ words: Utterance) -> Range<Int>? {
        let nouns = Set(language.nouns.keys.flatMap { language.nounKeys($0) })
        guard let naming = words.words.indices.first(where: { index in
            Understander.namingWords.contains(words.words[index].key) || (words.words[index].pauseAfter && nouns.contains(words.words[index].key))
        }) else { return nil }
        let start = naming + 1
        guard start < words.words.count else { return nil }
        let end = frame.times.first(where: { $0.range.lowerBound >= start })?.range.lowerBound ?? words.words.count
        return start < end ? start..<end : nil
    }

    /// When the tagger placed no name: the words right after the intent's verb, up to a time,
    /// a place, people or where it goes ("put yoga on my calendar"), if the schemas declare
    /// none of them (a word they declare there is more likely part of the request).
    private func titleAfterVerb(_ intent: IntentDefinition, _ frame: StatisticalFrame, _ words: Utterance, entity: QualifiedName) -> Range<Int>? {
        let keys = words.keys
        guard let verbs = language.verbs[intent.name],
              let verb = keys.indices.lazy.compactMap({ start in
                  verbs.filter { start + $0.count <= keys.count && Array(keys[start..<(start + $0.count)]) == $0 }.map(\.count).max().map { start..<(start + $0) }
              }).first else { return nil }
        var start = verb.upperBound
        while start < keys.count, MentionReader.determiners.contains(keys[start]) { start += 1 }
        var end = start
        let stops: Set<String> = ["on", "to", "in", "at", "with", "for", "from", "by", "into"]
        while end < keys.count, !stops.contains(keys[end]), !frame.times.contains(where: { $0.range.contains(end) }) { end += 1 }
        guard start < end, keys[start..<end].allSatisfy({ model.token($0) == TrainingSentences.unknown }) else { return nil }
        return start..<end
    }

    /// "remind me about the rocket test 30 minutes before": a reminder about a record that
    /// exists is an alarm added to it (the intent that changes the entity, its parameter that
    /// `@reminder` marks on the create), before or after its start by the duration said.
    private func reminderOnExisting(_ verb: Range<Int>, _ frame: StatisticalFrame, _ words: Utterance, intent: IntentDefinition,
                                    entity: EntityDefinition) -> Draft? {
        let keys = words.keys
        // "remind me about X 30 minutes before", or "remind me three days before X".
        let saysAbout = ["about", "of"].contains(keys[verb.upperBound - 1]) || (verb.upperBound < keys.count && ["about", "of"].contains(keys[verb.upperBound]))
        let saysBefore = frame.times.contains { span in
            if case .duration = span.resolution { return span.range.lowerBound == verb.upperBound && span.range.upperBound < keys.count
                && ["before", "after"].contains(keys[span.range.upperBound]) }
            return false
        }
        guard saysAbout || saysBefore,
              let reminding = intent.parameters.first(where: { $0.annotations.contains(named: "reminder") }),
              let update = registry.allIntents.first(where: { $0.action == .update && $0.entity == entity.name }),
              let target = update.targetParameter, let alarms = update.parameter(reminding.name),
              case .union(let unionName) = alarms.type.base, let union = registry.union(unionName),
              let durationCase = union.cases.first(where: { $0.type.base == .builtin(.duration) }) else { return nil }
        // The offset: a duration followed by "before" or "after"; none is at the start.
        var offset = DurationValue()
        var offsetRange: Range<Int>?
        for span in frame.times {
            guard case .duration(let duration) = span.resolution, span.range.upperBound < keys.count,
                  ["before", "after", "early", "ahead"].contains(keys[span.range.upperBound]) else { continue }
            offset = DurationValue(isNegative: keys[span.range.upperBound] != "after", weeks: duration.weeks, days: duration.days, hours: duration.hours,
                                   minutes: duration.minutes, seconds: duration.seconds)
            offsetRange = span.range.lowerBound..<(span.range.upperBound + 1)
        }
        let named: Utterance
        if saysBefore, let offsetRange {
            // The record follows "before": "three days before the picnic".
            guard offsetRange.upperBound < keys.count else { return nil }
            named = words[offsetRange.upperBound..<keys.count]
        } else {
            let start = keys[verb.upperBound - 1] == "about" || keys[verb.upperBound - 1] == "of" ? verb.upperBound : verb.upperBound + 1
            let end = offsetRange?.lowerBound ?? keys.count
            guard start < end else { return nil }
            named = words[start..<end]
        }
        guard let mention = mention(named, of: entity.name), case .text(let text) = mention else { return nil }
        if case .notFound = lookup(entity.name, text) { return nil }
        var draft = Draft(intent: update, slots: [:], timeParameter: nil)
        draft.slots[target.name] = .mention(mention)
        draft.sourceWords[target.name] = named
        let alarm = Value.union(durationCase.name, .duration(offset))
        draft.slots[alarms.name] = .value(alarms.type.isArray ? .array([alarm]) : alarm)
        draft.sourceWords[alarms.name] = offsetRange.map { words[$0] } ?? words[verb]
        draft.appends = [alarms.name]
        let when = offset.approximateSeconds == 0 ? "when it starts" : engine.display(alarm, type: TypeExpression(alarms.type.base)) + " it starts"
        draft.saidAfter = "I'll remind you \(when)."
        return draft
    }

    /// After a reminder verb and the "to", "about", "of" or "that" that ends or follows it
    /// ("remind me to", "send me a reminder to", "set a reminder for me to"), the title is the
    /// words after it that are not times: "remind me to pick up the laundry next Monday" is
    /// "pick up the laundry", "remind me about the upcoming holiday party" is "holiday party".
    private func titleAfter(_ verb: Range<Int>?, _ frame: StatisticalFrame, _ words: Utterance) -> Utterance? {
        guard let verb else { return nil }
        let keys = words.keys
        let links: Set<String> = ["to", "about", "of", "that"]
        var start = verb.upperBound
        if !links.contains(keys[verb.upperBound - 1]) {
            // "set a reminder for me to …", "remind me for me to …": who it is for, then the link.
            if start < keys.count, keys[start] == "me", keys[verb.upperBound - 1] == "for" { start += 1 }
            else if start + 1 < keys.count, keys[start] == "for", keys[start + 1] == "me" { start += 2 }
            guard start < keys.count, links.contains(keys[start]) else { return nil }
            start += 1
        }
        var said = words.words.indices.filter { index in index >= start && !frame.times.contains(where: { $0.range.contains(index) }) }.map { words.words[$0] }
        while said.count > 1, MentionReader.determiners.contains(said[0].key) || (said[0].key == "i" && said.count > 2 && ["have", "need"].contains(said[1].key)) {
            said.removeFirst(said[0].key == "i" ? 2 : 1)
        }
        while said.count > 1, let last = said.last?.key, ["at", "on", "for", "by", "in", "from", "and"].contains(last) { said.removeLast() }
        return said.isEmpty ? nil : Utterance(words: said)
    }

    /// Whether the words name the kind in the plural ("events") and no title.
    private func showsMany(_ words: Utterance, entity: QualifiedName?) -> Bool {
        guard let entity else { return false }
        let plurals = Set((language.nouns[entity] ?? []).map { DeclaredLanguage.plural($0).joined(separator: " ") })
        return words.keys.contains(where: plurals.contains)
    }

    /// The words that say the entity's kind ("appointment", "meetings"), outside any time.
    private func kindWords(_ words: Utterance, entity: QualifiedName, times: [TimeSpan]) -> Utterance? {
        let nouns = language.nounKeys(entity)
        let keys = words.keys
        // "schedule a call": a word that is a verb and a noun, said first, is the verb.
        func isVerb(_ index: Int) -> Bool {
            model.verbPhrases[keys[index]] != nil && (index == 0 || StatisticalModel.verbLeads.contains(keys[index - 1]))
        }
        let said = words.words.indices.filter { index in nouns.contains(keys[index]) && !isVerb(index) && !times.contains { $0.range.contains(index) } }
        return said.isEmpty ? nil : Utterance(words: said.map { words.words[$0] })
    }

    /// "move the standup to 10": a bare number after the last "to" at the end of a change is
    /// the hour it goes to, read as "at 10" is.
    private func bareNewTime(_ words: Utterance, after frame: StatisticalFrame) -> TimeSpan? {
        guard let link = words.words.indices.last(where: { Understander.newTimeLinks.contains(words.words[$0].key) }),
              link + 1 < words.words.count, !frame.times.contains(where: { $0.range.upperBound > link }) else { return nil }
        let rest = words[(link + 1)..<words.words.count]
        guard let resolution = time(rest.text) ?? time("at " + rest.text) else { return nil }
        return TimeSpan(range: (link + 1)..<words.words.count, resolution: resolution)
    }

    /// In a change, "on Friday to 10" is two expressions: the record's day and its new time.
    private func splittingMoves(_ frame: StatisticalFrame, _ words: Utterance) -> StatisticalFrame {
        var times: [TimeSpan] = []
        for span in frame.times {
            let keys = words.keys
            guard case .range = span.resolution, Understander.splitsAsMove(words[span.range]),
                  let link = span.range.dropFirst().first(where: { Understander.newTimeLinks.contains(keys[$0]) }),
                  let before = time(words[span.range.lowerBound..<link].text),
                  let after = time(words[link..<span.range.upperBound].text) ?? time(words[(link + 1)..<span.range.upperBound].text) else {
                times.append(span)
                continue
            }
            times.append(TimeSpan(range: span.range.lowerBound..<link, resolution: before))
            times.append(TimeSpan(range: link..<span.range.upperBound, resolution: after))
        }
        return frame.with(times: times)
    }

    // MARK: Parts

    private func question(_ frame: StatisticalFrame, _ words: Utterance) -> Reading? {
        let parts = frame.label.dropFirst().split(separator: "#", maxSplits: 1)
        let path = parts[0]
        let only = parts.count > 1 ? String(parts[1]) : nil
        guard let dot = path.lastIndex(of: ".") else { return nil }
        let entityName = String(path[..<dot]), propertyName = String(path[path.index(after: dot)...])
        guard let entity = registry.allEntities.first(where: { $0.name.description == entityName }), let property = entity.property(propertyName),
              let annotation = property.annotations.first(where: { annotation in
                  guard annotation.name == "question", annotation.labelled["kind"] == nil else { return false }
                  if case .name(let named)? = annotation.labelled["only"] { return named == only }
                  return only == nil
              }) else { return nil }
        let mention = description(frame, words, times: frame.times, entity: entity.name)
        return .question(QuestionDraft(entity: entity, property: property, annotation: annotation, mention: mention?.mention, mentionWords: mention?.words))
    }

    /// The title of a new record: the words tagged as its name, less the determiner before
    /// them; nil when they only say the kind ("add an appointment": what is it called?).
    private func titleRange(_ frame: StatisticalFrame, _ words: Utterance, entity: QualifiedName) -> Range<Int>? {
        let keys = words.keys
        var start = frame.spans(.name).first
        // "book a call with Priya" with only Priya tagged: the word between the determiner and
        // "with" or "for" is what it is (the tagger leaves declared words out of titles at times).
        if start == nil, let person = frame.spans(.person).first, person.lowerBound >= 3, ["with", "for"].contains(keys[person.lowerBound - 1]),
           ["a", "an", "my", "the", "our"].contains(keys[person.lowerBound - 3]),
           !frame.times.contains(where: { $0.range.contains(person.lowerBound - 2) }) {
            start = (person.lowerBound - 2)..<person.upperBound
        }
        guard let first = start else { return nil }
        var range = first
        // "lunch with Bob", "an appointment for Allen": the people are part of what it is called.
        for person in frame.spans(.person) + frame.spans(.name).dropFirst() {
            let linked = person.lowerBound == range.upperBound + 1 && ["with", "for"].contains(words.words[range.upperBound].key)
            let joined = person.lowerBound == range.upperBound && ["with", "for"].contains(words.words[range.upperBound - 1].key)
            if linked || joined { range = range.lowerBound..<person.upperBound }
        }
        // A name that ends in "with" or "for" names who next, whatever the tagger made of it.
        if ["with", "for"].contains(words.words[range.upperBound - 1].key), range.upperBound < words.words.count,
           !frame.times.contains(where: { $0.range.lowerBound == range.upperBound }) {
            range = range.lowerBound..<(range.upperBound + 1)
        }
        // "an appointment for Allen" tagged only "Allen": the kind before "for" or "with" is said too.
        let nouns = language.nounKeys(entity)
        if range.lowerBound >= 2, ["with", "for"].contains(words.words[range.lowerBound - 1].key), nouns.contains(words.words[range.lowerBound - 2].key) {
            range = (range.lowerBound - 2)..<range.upperBound
        }
        while range.count > 1, MentionReader.determiners.contains(words.words[range.lowerBound].key) { range = (range.lowerBound + 1)..<range.upperBound }
        guard !words[range].keys.allSatisfy({ nouns.contains($0) || MentionReader.determiners.contains($0) }) else { return nil }
        return range
    }

    /// A title that ends in where the record goes ("meeting on calendar", "swim on my calendar")
    /// ends before it: the noun of a kind that holds records of this one, after "on", "to" or
    /// "in" and a determiner or none.
    func droppingContainer(_ range: Range<Int>, _ words: Utterance, entity: QualifiedName) -> Range<Int> {
        let keys = words.keys
        let holders = Set((language.containers[entity] ?? []).flatMap { language.nounKeys($0) })
        guard range.count > 2, holders.contains(keys[range.upperBound - 1]) else { return range }
        var cut = range.upperBound - 2
        if ["my", "the", "our", "your"].contains(keys[cut]) { cut -= 1 }
        guard cut > range.lowerBound, ["on", "to", "in", "into", "onto"].contains(keys[cut]) else { return range }
        return range.lowerBound..<cut
    }

    /// Every time expression of a new record: points said in pieces ("tomorrow … at 1pm") read
    /// together as its start, a duration as its length, a rule as its recurrence.
    private func setTimes(_ times: [TimeSpan], _ words: Utterance, intent: IntentDefinition, entity: EntityDefinition, into draft: inout Draft) {
        var points: [TimeSpan] = []
        var startOfPart = false
        for span in times {
            switch span.resolution {
            case .duration:
                if let end = entity.temporalFields?.end, let parameter = intent.parameter(end),
                   let slot = readSlot(words[span.range], parameter: parameter, intent: intent) {
                    draft.slots[end] = slot
                    draft.sourceWords[end] = words[span.range]
                }
            case .recurrence:
                if let parameter = intent.parameters.first(where: { $0.type.base == .builtin(.recurrence) }),
                   let slot = readSlot(words[span.range], parameter: parameter, intent: intent) {
                    draft.slots[parameter.name] = slot
                    draft.sourceWords[parameter.name] = words[span.range]
                }
            case .range(let start, let end) where !Understander.saysRange(words[span.range]):
                // "lunch tomorrow afternoon": a part of one day starts at its start, and the reply
                // says so; a vaguer span ("upcoming", "this week") is no start: the engine asks.
                guard let from = start.instant, let to = end.instant, to.timeIntervalSince(from) <= 86_400 else { continue }
                points.append(TimeSpan(range: span.range, resolution: .instant(start)))
                startOfPart = true
                let sentence = "It starts at the start of “\(words[span.range].text)”; say a time to change it."
                draft.saidAfter = [draft.saidAfter, sentence].compactMap { $0 }.joined(separator: " ")
            default:
                points.append(span)
            }
        }
        guard let start = entity.temporalFields?.start ?? Understander.firstTime(of: intent), let parameter = intent.parameter(start),
              let said = combined(points, words) else { return }
        // The start of a part of a day is taken as found, not read again as the whole part.
        let vague = points.count == 1 && startOfPart
        guard let slot = vague ? .time(said.resolution) : readSlot(said.words, parameter: parameter, intent: intent) else { return }
        draft.slots[start] = slot
        draft.sourceWords[start] = said.words
        draft.timeParameter = start
    }

    /// Whether a range is said as one ("from 2 to 3pm", "between 10 and 12", "9-5"), not a
    /// part of a day or a week.
    static func saysRange(_ words: Utterance) -> Bool {
        words.keys.contains { ["from", "between", "to", "until", "till", "through", "thru", "-", "–"].contains($0) || $0.contains("-") || $0.contains("–") }
    }

    /// Time expressions the reading found and put in no slot: shown, never dropped silently.
    func unusedTimes(_ frame: StatisticalFrame, _ words: Utterance, draft: Draft) -> [Utterance] {
        var used: [String] = draft.sourceWords.values.map { " " + $0.keys.joined(separator: " ") + " " }
        for slot in draft.slots.values {
            if case .mention(.description(let description)) = slot, let text = description.timeText { used.append(" " + Utterance(text).keys.joined(separator: " ") + " ") }
            if case .mention(.time(_, let text)) = slot { used.append(" " + Utterance(text).keys.joined(separator: " ") + " ") }
        }
        return frame.times.map { words[$0.range] }.filter { span in
            let said = " " + span.keys.joined(separator: " ") + " "
            return !used.contains { $0.contains(said) }
        }
    }

    /// The time a record of a kind with no start is given: the intent's first date-time
    /// parameter that plays no role (a task's due date).
    static func firstTime(of intent: IntentDefinition) -> String? {
        intent.parameters.first { $0.type.base == .builtin(.dateTime) && $0.role == nil && !$0.isTarget }?.name
    }

    /// Several time expressions as one ("on Friday" and "at two pm"), when together they read;
    /// otherwise the first.
    private func combined(_ spans: [TimeSpan], _ words: Utterance) -> (words: Utterance, resolution: TemporalResolution)? {
        guard let first = spans.first else { return nil }
        if spans.count > 1 {
            let joined = Utterance(words: spans.flatMap { words.words[$0.range] })
            if let resolution = time(joined.text) { return (joined, resolution) }
            // That do not read together: the one said last refines ("coming up … this week").
            let last = spans[spans.count - 1]
            return (words[last.range], last.resolution)
        }
        return (words[first.range], first.resolution)
    }

    private func setPlace(_ frame: StatisticalFrame, _ words: Utterance, intent: IntentDefinition, into draft: inout Draft) {
        guard let range = frame.spans(.place).first else { return }
        for parameter in intent.parameters where !parameter.isTarget && draft.slots[parameter.name] == nil {
            let isPlace: Bool
            switch parameter.type.base {
            case .builtin(.place): isPlace = true
            case .union(let name): isPlace = registry.union(name)?.cases.contains { $0.type.base == .builtin(.place) } ?? false
            default: isPlace = false
            }
            guard isPlace, let value = value(words[range], type: parameter.type) else { continue }
            draft.slots[parameter.name] = .value(value)
            draft.sourceWords[parameter.name] = words[range]
            return
        }
    }

    /// In a change, the time expression that is the new value: the last one introduced as one
    /// ("to 3pm", "until Friday"), a shift ("an hour later"), or the only one at the end.
    private func newTimeSpan(_ frame: StatisticalFrame, _ words: Utterance) -> TimeSpan? {
        for span in frame.times.reversed() {
            let before = span.range.lowerBound > 0 ? words.words[span.range.lowerBound - 1].key : ""
            if Understander.newTimeLinks.contains(before) || Understander.newTimeLinks.contains(words.words[span.range.lowerBound].key) { return span }
            if case .shift = span.resolution { return span }
            if case .duration = span.resolution, span.range.upperBound == words.words.count { return span }
        }
        if frame.times.count == 1, let only = frame.times.first, only.range.upperBound == words.words.count,
           !frame.spans(.name).contains(where: { $0.upperBound == only.range.lowerBound }) {
            return only
        }
        return frame.times.count > 1 ? frame.times.last : nil
    }

    /// The mention a description makes: title words, the times that narrow it, a person,
    /// next or last, all. Plain words alone are a name as the phrase reader reads one; a time
    /// alone is a time mention; nothing at all is nil (the request asks which).
    private func description(_ frame: StatisticalFrame, _ words: Utterance, times: [TimeSpan], entity: QualifiedName) -> (mention: Mention, words: Utterance)? {
        let nameRanges = frame.spans(.name)
        let personRanges = frame.spans(.person)
        // "the 2pm one": "one" stands for the kind.
        let nouns = language.nounKeys(entity).union(["one", "ones"])
        var description = MentionDescription()
        let keys = words.keys
        if keys.contains(where: Understander.allWords.contains) { description.all = true }
        if let firstName = nameRanges.first {
            let before = keys[max(0, firstName.lowerBound - 2)..<firstName.lowerBound]
            if before.contains(where: Understander.nextWords.contains) { description.position = .next }
            if before.contains(where: Understander.lastWords.contains) { description.position = .last }
        }
        // The tagger may leave the kind untagged ("cancel all appointments"): it is still said.
        let named = nameRanges.isEmpty ? (kindWords(words, entity: entity, times: times)?.words ?? []) : nameRanges.flatMap { words.words[$0] }
        let titleWords = named.filter { !nouns.contains($0.key) && !MentionReader.determiners.contains(model.token($0.key))
            && !Understander.nextWords.contains($0.key) && !Understander.lastWords.contains($0.key) && !Understander.allWords.contains($0.key) }
        if !titleWords.isEmpty { description.words = titleWords.map(\.text).joined(separator: " ") }
        if let person = personRanges.first { description.person = words[person].text }
        var timeWords: Utterance?
        // A repeat ("daily") does not narrow which record is meant.
        let times = times.filter { span in
            switch span.resolution {
            case .date, .instant, .range, .timeOfDay: return true
            default: return false
            }
        }
        if let span = combined(times, words) {
            description.time = span.resolution
            description.timeText = span.words.text
            timeWords = span.words
        }
        let shown = Utterance(words: named)
        guard description.words != nil || description.time != nil || description.person != nil || description.position != .any || !named.isEmpty else { return nil }
        if description.time == nil, description.person == nil, description.position == .any, !description.all, let text = description.words {
            return (.text(text), shown)
        }
        if named.isEmpty, description.person == nil, description.position == .any, !description.all, let time = description.time,
           let text = description.timeText, let timeWords {
            return (.time(time, text: text), timeWords)
        }
        return (.description(description), shown)
    }
}
