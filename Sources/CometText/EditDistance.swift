/// String similarity used for "Did you mean ...?" suggestions.
///
/// Public because other modules (schema field names, calendar names) want the
/// same suggestion behaviour as the command line.
public enum EditDistance {
    /// Optimal-string-alignment (restricted Damerau–Levenshtein) distance:
    /// insertions, deletions, substitutions and swaps of two adjacent
    /// characters each cost 1. Compares `Character`s exactly (case-sensitive).
    public static func distance(_ a: String, _ b: String) -> Int {
        distance(Array(a), Array(b))
    }

    /// The candidate a user most plausibly meant by `input`, or nil.
    ///
    /// Comparison ignores case. Rules, in order:
    /// 1. The candidate with the smallest edit distance, if that distance is
    ///    at most `maxDistance` and smaller than the input's length (so a
    ///    one-letter typo never "matches" an unrelated one-letter word).
    /// 2. Otherwise the shortest candidate that starts with `input`
    ///    (`jso` suggests `json`).
    ///
    /// Ties go to the candidate that comes first in `among`, so results are
    /// deterministic and follow declaration order. A candidate identical to
    /// `input` is not a suggestion.
    public static func closest(to input: String, among candidates: [String], maxDistance: Int = 2) -> String? {
        let needle = Array(input.lowercased())
        guard !needle.isEmpty else { return nil }

        var best: (candidate: String, distance: Int)?
        for candidate in candidates where candidate != input {
            let d = distance(needle, Array(candidate.lowercased()))
            guard d <= maxDistance, d < needle.count else { continue }
            if best == nil || d < best?.distance ?? Int.max {
                best = (candidate, d)
            }
        }
        if let best { return best.candidate }

        let lowered = input.lowercased()
        var prefixMatch: String?
        for candidate in candidates where candidate != input && candidate.lowercased().hasPrefix(lowered) {
            if candidate.count < prefixMatch?.count ?? Int.max {
                prefixMatch = candidate
            }
        }
        return prefixMatch
    }

    private static func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        // Three rolling rows: two rows back is needed for transpositions.
        var previousPrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    value = min(value, previousPrevious[j - 2] + 1)
                }
                current[j] = value
            }
            (previousPrevious, previous, current) = (previous, current, previousPrevious)
        }
        return previous[b.count]
    }
}
