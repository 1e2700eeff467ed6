import Testing
import CometText

@Suite("Number text")
struct NumberTextTests {
    @Test("counts are grouped by thousands with commas", arguments: [
        (0, "0"), (7, "7"), (999, "999"), (1_000, "1,000"), (6_272, "6,272"), (25_000, "25,000"),
        (1_234_567, "1,234,567"), (-1_500, "-1,500"),
    ])
    func grouped(number: Int, text: String) {
        #expect(NumberText.grouped(number) == text)
    }
}
