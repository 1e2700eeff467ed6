import Testing
import CometSchema
@testable import CometDaemon

@Suite("Framing and JSON-RPC messages")
struct FrameDecoderTests {
    private func frames(_ text: String, chunk: Int, limits: FrameDecoder.Limits = FrameDecoder.Limits()) -> [FrameDecoder.Event] {
        var decoder = FrameDecoder(limits: limits)
        var events: [FrameDecoder.Event] = []
        let bytes = Array(text.utf8)
        var index = 0
        while index < bytes.count {
            decoder.append(bytes[index..<min(bytes.count, index + chunk)])
            index += chunk
            while let event = decoder.next() { events.append(event) }
        }
        return events
    }

    @Test("frames arrive whole however the bytes are cut", arguments: [1, 2, 3, 7, 64, 10_000])
    func anyChunking(_ chunk: Int) {
        let text = "Content-Length: 2\r\n\r\n{}Content-Type: application/vscode-jsonrpc; charset=utf-8\r\ncontent-length: 4\r\n\r\n[1]\n\r\n"
            + "Content-Length: 0\r\n\r\n"
        #expect(frames(text, chunk: chunk) == [.message(Array("{}".utf8)), .message(Array("[1]\n".utf8)), .message([])])
    }

    @Test("a malformed header is reported and the next frame still reads")
    func malformedThenRecovers() {
        let events = frames("garbage here\r\n\r\nContent-Length: 2\r\n\r\n{}", chunk: 5)
        #expect(events.count == 2)
        guard case .problem(.malformedHeader(let reason)) = events[0] else { Issue.record("\(events)"); return }
        #expect(reason.contains("not a header line"))
        #expect(events[1] == .message(Array("{}".utf8)))
        #expect(frames("Content-Length: -3\r\n\r\n", chunk: 100) == [.problem(.malformedHeader("Content-Length '-3' is not a length"))])
        #expect(frames("Content-Type: x\r\n\r\n", chunk: 100) == [.problem(.malformedHeader("the header has no Content-Length"))])
    }

    @Test("a body over the limit is skipped without being kept, and the stream goes on")
    func tooLarge() {
        let limits = FrameDecoder.Limits(headerBytes: 64, bodyBytes: 10)
        let big = String(repeating: "x", count: 5_000)
        let events = frames("Content-Length: 5000\r\n\r\n\(big)Content-Length: 2\r\n\r\n{}", chunk: 97, limits: limits)
        #expect(events == [.problem(.tooLarge(5000)), .message(Array("{}".utf8))])
    }

    @Test("a header that never ends is cut at its limit")
    func headerTooLong() {
        let limits = FrameDecoder.Limits(headerBytes: 64, bodyBytes: 10)
        let events = frames(String(repeating: "a", count: 300) + "\r\n\r\nContent-Length: 2\r\n\r\n{}", chunk: 50, limits: limits)
        #expect(events.first == .problem(.headerTooLong))
        #expect(events.last == .message(Array("{}".utf8)))
    }

    @Test("the specification's examples: batches, notifications, invalid requests")
    func specExamples() {
        func parse(_ text: String) -> RPCMessage.Incoming { RPCMessage.parse(Array(text.utf8)) }
        if case .single(.failure(let failure)) = parse(#"{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]"#) {
            #expect(failure.error.code == -32700 && failure.id == .null)
        } else { Issue.record("parse error expected") }
        if case .single(.failure(let failure)) = parse("[]") { #expect(failure.error.code == -32600) } else { Issue.record("empty batch") }
        if case .batch(let items) = parse("[1,2,3]") {
            #expect(items.count == 3)
            #expect(items.allSatisfy { if case .failure(let failure) = $0 { return failure.error.code == -32600 } else { return false } })
        } else { Issue.record("batch of invalid") }
        if case .single(.success(let request)) = parse(#"{"jsonrpc": "2.0", "method": "update", "params": {"a": 1}}"#) {
            #expect(request.id == nil, "no id: a notification")
            #expect(request.params["a"] == .int(1))
        } else { Issue.record("notification") }
        if case .single(.failure(let failure)) = parse(#"{"jsonrpc": "2.0", "method": 1, "params": "bar", "id": 7}"#) {
            #expect(failure.error.code == -32600 && failure.id == .number(7))
        } else { Issue.record("method must be a string") }
        if case .single(.failure(let failure)) = parse(#"{"jsonrpc": "2.0", "method": "subtract", "params": [42, 23], "id": "a"}"#) {
            #expect(failure.error.code == -32602 && failure.id == .string("a"), "params are named")
        } else { Issue.record("positional params") }
    }
}
