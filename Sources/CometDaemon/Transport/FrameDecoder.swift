/// Reads `Content-Length`-framed messages, as the Language Server Protocol frames them: header
/// lines ending in CRLF, an empty line, then exactly that many bytes of body. Incremental (bytes
/// arrive in any pieces) and bounded: a header block or a body over its limit is reported and
/// skipped without being held in memory, and the stream goes on with the next frame.
public struct FrameDecoder: Sendable {
    public struct Limits: Sendable {
        /// The most header bytes one frame may have.
        public var headerBytes = 8 * 1024
        /// The largest body accepted; a larger one is skipped and answered with an error.
        public var bodyBytes = 64 * 1024 * 1024

        public init(headerBytes: Int = 8 * 1024, bodyBytes: Int = 64 * 1024 * 1024) {
            self.headerBytes = headerBytes
            self.bodyBytes = bodyBytes
        }
    }

    public enum Problem: Error, Sendable, Hashable {
        /// The header block is not `Name: value` lines with a Content-Length.
        case malformedHeader(String)
        /// The body is larger than the limit (its size as announced).
        case tooLarge(Int)
        /// The header block grew past its limit without ending.
        case headerTooLong
    }

    public enum Event: Sendable, Hashable {
        case message([UInt8])
        case problem(Problem)
    }

    private enum State: Sendable {
        case headers
        case body(Int)
        /// Skipping an oversized body, this many bytes still to go.
        case skipping(Int)
    }

    public let limits: Limits
    private var buffer: [UInt8] = []
    /// Where unread bytes start in `buffer` (compacted now and then, so reading stays linear).
    private var start = 0
    private var state = State.headers

    public init(limits: Limits = Limits()) { self.limits = limits }

    /// Bytes held for a frame not yet complete.
    public var pendingBytes: Int { buffer.count - start }
    /// True while part of a frame has arrived and the rest has not.
    public var isInsideFrame: Bool {
        if case .headers = state { return pendingBytes > 0 }
        return true
    }

    public mutating func append(_ bytes: some Collection<UInt8>) {
        if case .skipping(let remaining) = state {
            let skipped = Swift.min(remaining, bytes.count)
            state = remaining - skipped == 0 ? .headers : .skipping(remaining - skipped)
            buffer.append(contentsOf: bytes.dropFirst(skipped))
            return
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete message or problem, or nil until more bytes arrive.
    public mutating func next() -> Event? {
        defer { compact() }
        while true {
            switch state {
            case .skipping:
                return nil
            case .body(let length):
                guard pendingBytes >= length else { return nil }
                let body = Array(buffer[start..<(start + length)])
                start += length
                state = .headers
                return .message(body)
            case .headers:
                // Blank lines between frames are tolerated.
                while pendingBytes >= 2, buffer[start] == 13, buffer[start + 1] == 10 { start += 2 }
                guard pendingBytes > 0 else { return nil }
                guard let end = headerEnd() else {
                    if pendingBytes > limits.headerBytes {
                        // Keep the last bytes: the terminator may be split across reads.
                        start = buffer.count - 3
                        return .problem(.headerTooLong)
                    }
                    return nil
                }
                let header = Array(buffer[start..<end])
                start = end + 4
                switch FrameDecoder.contentLength(header) {
                case .failure(let problem):
                    return .problem(problem)
                case .success(let length):
                    if length > limits.bodyBytes {
                        let available = Swift.min(pendingBytes, length)
                        start += available
                        if available < length { state = .skipping(length - available) }
                        return .problem(.tooLarge(length))
                    }
                    state = .body(length)
                }
            }
        }
    }

    /// The index of the CRLF CRLF ending the header block, within the header limit.
    private func headerEnd() -> Int? {
        let last = Swift.min(buffer.count, start + limits.headerBytes + 4) - 4
        guard last >= start else { return nil }
        var index = start
        while index <= last {
            if buffer[index] == 13, buffer[index + 1] == 10, buffer[index + 2] == 13, buffer[index + 3] == 10 { return index }
            index += 1
        }
        return nil
    }

    private static func contentLength(_ header: [UInt8]) -> Result<Int, Problem> {
        guard let text = String(validating: header, as: UTF8.self) else { return .failure(.malformedHeader("the header is not UTF-8")) }
        var length: Int?
        for line in text.split(separator: "\r\n", omittingEmptySubsequences: false) {
            guard let colon = line.firstIndex(of: ":") else {
                return .failure(.malformedHeader("'\(line.prefix(40))' is not a header line (Name: value)"))
            }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if name == "content-length" {
                guard let number = Int(value), number >= 0 else { return .failure(.malformedHeader("Content-Length '\(value.prefix(20))' is not a length")) }
                length = number
            }
        }
        guard let length else { return .failure(.malformedHeader("the header has no Content-Length")) }
        return .success(length)
    }

    private mutating func compact() {
        if start > 0, start >= buffer.count / 2 || start > 1 << 20 {
            buffer.removeFirst(start)
            start = 0
        }
    }

    /// A frame around a body.
    public static func frame(_ body: [UInt8]) -> [UInt8] {
        Array("Content-Length: \(body.count)\r\n\r\n".utf8) + body
    }
}

private extension Substring {
    func trimmingCharacters(in set: Set<Character>) -> String {
        String(drop { set.contains($0) }.reversed().drop { set.contains($0) }.reversed())
    }
}

private extension Set where Element == Character {
    static let whitespaces: Set<Character> = [" ", "\t"]
}
