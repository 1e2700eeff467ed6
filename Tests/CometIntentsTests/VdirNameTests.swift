import Foundation
import Testing
import CometIntents

/// How `export --vdir` names folders (from calendar titles) and files (from UIDs).
@Suite("vdir file and folder names")
struct VdirNameTests {
    @Test("letters, digits and _ . - + @ stay; every other byte is %XX, so / and a leading dot cannot reach the file system")
    func encoding() {
        #expect(Vdir.safeName("Work") == "Work")
        #expect(Vdir.safeName("abc-1_2.3+x@example.com") == "abc-1_2.3+x@example.com")
        #expect(Vdir.safeName("Home/Family") == "Home%2FFamily")
        #expect(Vdir.safeName("Café 50%") == "Caf%C3%A9%2050%25")
        #expect(Vdir.safeName(".hidden") == "%2Ehidden")
        #expect(Vdir.safeName("..") == "%2E.")
        #expect(Vdir.safeName("a~b") == "a%7Eb")
    }

    @Test("a name longer than 200 bytes keeps its start and ends with ~ and a hash of the whole text, different for different texts")
    func longNames() {
        let long = String(repeating: "é", count: 150)
        let name = Vdir.safeName(long)
        #expect(name.utf8.count <= 200)
        #expect(name.hasPrefix("%C3%A9"))
        #expect(name.contains("~"))
        let kept = name.split(separator: "~")[0]
        #expect(kept.split(separator: "%", omittingEmptySubsequences: false).last?.count == 2, "never cut inside a %XX: \(kept.suffix(6))")
        #expect(Vdir.safeName(long) == name)
        #expect(Vdir.safeName(long + "x") != name)
    }
}
