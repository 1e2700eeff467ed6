import Foundation
import CometSchema
import CometStore
import CometText

/// Finds the entity a person names, by id or by text: the one rule for every front end and
/// every intent (an update's target, an export's `--event` and `--calendar`, a conversation's
/// mention). An exact title wins over partial matches; an override counts as its series when the
/// series matches too; several equally good matches are a question, never a guess.
struct EntityResolver {
    let registry: Registry
    let transaction: any StoreReader
    let presenter: Presenter

    enum Resolution {
        case found(EntityRecord)
        /// Several match: the question to ask and every candidate.
        case ambiguous(prompt: String, candidates: [Candidate])
    }

    /// How many candidates a question names; the rest are counted ("and 4 more") and listed in
    /// the candidates.
    static let namedCandidates = 10

    /// Throws `notFound` (with a did-you-mean) when nothing matches; `parameter` names the
    /// parameter in the error.
    /// `narrowing`, when given, is what else the request says of the entity (an occurrence at a
    /// moment): of several matches, those it holds for are the ones meant.
    func resolve(_ text: String, as name: QualifiedName, parameter: String?, narrowing: ((EntityRecord) -> Bool)? = nil) throws -> Resolution {
        let noun = presenter.noun(name)
        if let id = UUID(uuidString: text.trimmingCharacters(in: .whitespaces)) {
            guard let record = try transaction.fetch(name, id: id) else {
                throw IntentError(.notFound, "no \(noun) has the id \(text)", parameter: parameter)
            }
            return .found(record)
        }
        // Every match, not the best few: an exact title may rank after many partial matches,
        // and the question must say how many there are.
        var matches = collapseSeries(try transaction.fetchAll(name, matching: [], text: text, limit: nil, offset: 0), of: name)
        if matches.isEmpty, registry.entity(name)?.titleProperty?.annotations.contains(named: "searchable") != true {
            // An entity whose title is not searched still matches it exactly. (When it is, the
            // search has looked already: reading every record again would cost a scan of the
            // store for every name misheard.)
            matches = try transaction.fetchAll(name, matching: [], limit: nil).filter(isTitled(text))
        }
        if matches.count > 1, let narrowing {
            let held = matches.filter(narrowing)
            if !held.isEmpty { matches = held }
        }
        let exact = matches.filter(isTitled(text))
        if exact.count == 1 { return .found(exact[0]) }
        if matches.count == 1 { return .found(matches[0]) }
        // A title that holds the words beats a note or a location that does: it is what the
        // person named. One such title is the answer; several are asked about first.
        let inTitle = matches.filter(titleHolds(text))
        if exact.isEmpty, inTitle.count == 1 { return .found(inTitle[0]) }
        if !inTitle.isEmpty { matches = inTitle + matches.filter { !titleHolds(text)($0) } }
        if matches.isEmpty {
            let titles = try transaction.fetchAll(name, matching: [], limit: 500).map { registry.title(of: $0) }
            throw IntentError(.notFound, "no \(noun) matches '\(text)'", parameter: parameter,
                              suggestion: EditDistance.closest(to: text, among: titles, maxDistance: 3))
        }
        let candidates = (exact.isEmpty ? matches : exact).map { presenter.candidate($0) }
        let named = candidates.prefix(EntityResolver.namedCandidates)
        var prompt = "Which \(noun) did you mean: " + named.map { candidate in
            "“\(candidate.title)”" + (candidate.subtitle.map { " (\($0))" } ?? "")
        }.joined(separator: ", ")
        if candidates.count > named.count { prompt += ", and \(NumberText.grouped(candidates.count - named.count)) more" }
        return .ambiguous(prompt: prompt + "?", candidates: candidates)
    }

    /// Every word of the text starts a word of the title, ignoring case and accents.
    private func titleHolds(_ text: String) -> (EntityRecord) -> Bool {
        let words = EntityResolver.words(text)
        return { record in
            let titleWords = EntityResolver.words(registry.title(of: record))
            return !words.isEmpty && words.allSatisfy { word in titleWords.contains { $0.hasPrefix(word) } }
        }
    }

    private static func words(_ text: String) -> [String] {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
            .split { !$0.isLetter && !$0.isNumber }.map(String.init)
    }

    private func isTitled(_ text: String) -> (EntityRecord) -> Bool {
        { registry.title(of: $0).compare(text, options: [.caseInsensitive, .diacriticInsensitive]) == .orderedSame }
    }

    /// An override stands for one occurrence of its series: when the series matches too, the
    /// series is what the person named (span and occurrence then pick the instance).
    private func collapseSeries(_ records: [EntityRecord], of name: QualifiedName) -> [EntityRecord] {
        guard let definition = registry.entity(name), let rules = TemporalRules(entity: definition) else { return records }
        let seriesUIDs = Set(records.filter { !rules.isOverride($0) }.compactMap { rules.uid($0) })
        return records.filter { !(rules.isOverride($0) && rules.uid($0).map(seriesUIDs.contains) == true) }
    }
}
