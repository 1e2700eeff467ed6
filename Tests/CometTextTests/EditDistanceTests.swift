import Testing
import CometText

@Suite("Edit distance")
struct EditDistanceTests {
    @Test("Insertions, deletions and substitutions each cost one")
    func basicDistances() {
        #expect(EditDistance.distance("kitten", "sitting") == 3)
        #expect(EditDistance.distance("", "abc") == 3)
        #expect(EditDistance.distance("abc", "") == 3)
        #expect(EditDistance.distance("same", "same") == 0)
        #expect(EditDistance.distance("json", "jsn") == 1)
    }

    @Test("Swapping two adjacent characters costs one")
    func transposition() {
        #expect(EditDistance.distance("title", "titel") == 1)
        #expect(EditDistance.distance("schema", "shcema") == 1)
        #expect(EditDistance.distance("ab", "ba") == 1)
    }

    @Test("The closest candidate within the limit wins")
    func closestWins() {
        #expect(EditDistance.closest(to: "strat", among: ["state", "start", "stop"]) == "start")
        #expect(EditDistance.closest(to: "JSON", among: ["json"]) == "json")
    }

    @Test("Ties go to the candidate listed first")
    func tieBreak() {
        #expect(EditDistance.closest(to: "lst", among: ["list", "last"]) == "list")
        #expect(EditDistance.closest(to: "lst", among: ["last", "list"]) == "last")
    }

    @Test("A prefix suggests the shortest candidate it starts")
    func prefixFallback() {
        #expect(EditDistance.closest(to: "disc", among: ["discussion", "discard"]) == "discard")
        #expect(EditDistance.closest(to: "jso", among: ["json"]) == "json")
    }

    @Test("Nothing is suggested when nothing is close, for empty input or for an exact match")
    func noSuggestion() {
        #expect(EditDistance.closest(to: "frobnicate", among: ["json", "db"]) == nil)
        #expect(EditDistance.closest(to: "x", among: ["y", "db"]) == nil)
        #expect(EditDistance.closest(to: "", among: ["a"]) == nil)
        #expect(EditDistance.closest(to: "json", among: ["json"]) == nil)
        #expect(EditDistance.closest(to: "abcd", among: ["wxyz"], maxDistance: 4) == nil)
    }

    @Test("maxDistance widens or narrows what counts as close")
    func maxDistance() {
        #expect(EditDistance.closest(to: "evnts", among: ["events"], maxDistance: 0) == nil)
        #expect(EditDistance.closest(to: "evnts", among: ["events"]) == "events")
        #expect(EditDistance.closest(to: "clndr", among: ["calendar"]) == nil)
        #expect(EditDistance.closest(to: "clndr", among: ["calendar"], maxDistance: 3) == "calendar")
    }
}
