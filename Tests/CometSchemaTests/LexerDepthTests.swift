import Testing
import CometSchema

/// A run of unexpected characters (a binary file given as a schema) is reported without the
/// lexer recursing once per character: 200,000 of them overflowed a debug build's stack.
@Suite("schema lexer on binary input")
struct LexerDepthTests {
    @Test("200,000 unexpected characters in a row: one diagnostic per run, no stack overflow, in linear time")
    func longRunOfUnexpectedCharacters() {
        let text = "domain d\n" + String(repeating: "\u{1}", count: 200_000)
        let result = SchemaCompiler.compile(sources: [SourceFile(path: "binary.cal", text: text)])
        #expect(result.errorCount > 0)
    }
}
