import Foundation
import Testing
@testable import CometSchema

/// `@verbs`, `@nouns`, `@words` and `@reminder`: the language a schema declares for the
/// conversation, held to their places and arguments by the checker.
@Suite("Declared language: @verbs, @nouns, @words, @reminder")
struct LanguageAnnotationTests {
    static let head = """
    domain alpha
    @nouns("thing", "gadget")
    indexed entity Item {
      id: UUID
      @title @words("name", "label") name: String
      due: DateTime?
    }
    union Alarm {
      @leadTime relative: Duration
      absolute: DateTime
    }

    """

    func errors(_ text: String) -> String? {
        do {
            _ = try Fixtures.registry(schema: LanguageAnnotationTests.head + text)
            return nil
        } catch let error as SchemaError {
            return error.description
        } catch {
            return "\(error)"
        }
    }

    @Test("the calendar schemas declare their words, and the registry gives them back in order")
    func declared() throws {
        let registry = try Fixtures.registry()
        let event = try registry.requireEntity("Event")
        #expect(event.annotations.strings(named: "nouns").prefix(3) == ["event", "meeting", "appointment"])
        #expect(event.property("location")?.annotations.strings(named: "words") == ["location", "place", "venue", "address"])
        let create = try registry.requireIntent("createEvent")
        #expect(create.annotations.strings(named: "verbs").contains("remind me to"))
        #expect(create.annotations.contains { $0.name == "verbs" && $0.labelled["reminder"] == .bool(true) })
        #expect(create.parameter("alarms")?.annotations.first(named: "reminder")?.firstString == "PT0S")
    }

    @Test("a well-placed declaration loads")
    func loads() {
        let text = """
        @verbs("add", "put down", reminder: false)
        @verbs("remind me to", reminder: true)
        intent createItem creates Item {
          name: String
          @reminder("-PT15M", said: "I'll tell you.") alarms: [Alarm]?
        }
        """
        #expect(errors(text) == nil)
    }

    @Test("misplaced, or with a wrong argument, each is an error that says what to write")
    func refused() throws {
        let nounsOnIntent = try #require(errors("@nouns(\"x\")\nintent listItems searches Item {\n  @role(text) text: String?\n}\n"))
        #expect(nounsOnIntent.contains("E20"), "\(nounsOnIntent)")
        #expect(nounsOnIntent.contains("nouns"))
        let badDuration = try #require(errors("intent createItem creates Item {\n  name: String\n  @reminder(\"soon\") alarms: [Alarm]?\n}\n"))
        #expect(badDuration.contains("needs an ISO 8601 duration such as \"PT0S\" or \"-PT15M\", not 'soon'"), "\(badDuration)")
        let notAnAlarm = try #require(errors("intent createItem creates Item {\n  @reminder(\"PT0S\") name: String\n}\n"))
        #expect(notAnAlarm.contains("needs a parameter of a union with a Duration case (an alarm); 'name' is 'String'"), "\(notAnAlarm)")
        let badFlag = try #require(errors("@verbs(\"add\", reminder: \"yes\")\nintent createItem creates Item {\n  name: String\n}\n"))
        #expect(badFlag.contains("takes reminder: true or false"), "\(badFlag)")
        let badOnly = try #require(errors("""
        enum Answer {
          yes
          no
        }
        transient entity Guest {
          @title name: String
          answer: Answer = .no
        }
        indexed entity Party {
          id: UUID
          @title title: String
          @question("who declined {}", only: maybe) guests: [Guest] = []
        }

        """))
        #expect(badOnly.contains("only: names 'maybe', which is no case of an enum of the items of 'guests'"), "\(badOnly)")
        let badFree = try #require(errors("@verbs(\"am i free\", free: 1)\nintent listItems searches Item {\n  @role(text) text: String?\n}\n"))
        #expect(badFree.contains("takes free: true or false"), "\(badFree)")
    }
}
