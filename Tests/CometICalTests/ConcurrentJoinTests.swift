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
