import Testing
import Foundation
@testable import CometICal

/// Export writes components on several threads; the document must not depend on that.
@Suite("Writing components concurrently")
struct ConcurrentJoinTests {
    @Test("texts come back joined in order, for sizes below and above the threshold")
    func order() throws {
        for count in [0, 1, 64, 65, 1_000, 10_007] {
            let joined = try ICalWriter.concurrentJoin(count) { "\($0)," }
            #expect(joined == (0..<count).map { "\($0)," }.joined())
        }
    }

    /// Foundation on Linux counts the processors anew at every ask, reading the cgroup's files:
    /// a CalDAV answer writes one document per event, so that was file reads per event.
    @Test("a small document's join reads no file: the processor count is asked once per process")
    func noFileReadsPerJoin() throws {
        _ = try ICalWriter.concurrentJoin(3) { "\($0)," }
        let before = try Self.readSystemCalls()
        for _ in 0..<200 {
            _ = try ICalWriter.concurrentJoin(3) { "\($0)," }
        }
        let after = try Self.readSystemCalls()
        #expect(after - before < 20, "\(after - before) read system calls on this thread for 200 joins")
    }

    /// The read system calls this thread made so far (Linux's per-thread I/O counters).
    static func readSystemCalls() throws -> Int {
        let text = try String(contentsOfFile: "/proc/thread-self/io", encoding: .utf8)
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("syscr:") })
        return try #require(Int(line.dropFirst("syscr:".count).trimmingCharacters(in: .whitespaces)))
    }

    @Test("the first failing item in order is the error thrown, whichever thread fails first")
    func firstError() {
        struct Failure: Error, Equatable { let index: Int }
        for _ in 0..<20 {
            #expect(throws: Failure(index: 300)) {
                _ = try ICalWriter.concurrentJoin(5_000) { index in
                    if index == 300 || index == 4_000 { throw Failure(index: index) }
                    return "x"
                }
            }
        }
    }
}
