/// Hrefs: resource names in path segments (RFC 3986 percent-encoding) and the hrefs of
/// request bodies turned into paths.
public enum DAVHref {
    public struct Error: Swift.Error, Hashable, Sendable, CustomStringConvertible {
        public let href: String
        public let message: String

        public var description: String { "href \"\(href)\": \(message)" }
    }

    /// Percent-encodes one path segment: every byte of its UTF-8 except the unreserved
    /// characters (ALPHA DIGIT - . _ ~) and "@" (common in UIDs, allowed in a segment).
    public static func encodeSegment(_ segment: String) -> String {
        if segment.utf8.allSatisfy({ isUnreserved($0) || $0 == UInt8(ascii: "@") }) { return segment }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(segment.utf8.count * 3)
        for byte in segment.utf8 {
            if isUnreserved(byte) || byte == UInt8(ascii: "@") {
                bytes.append(byte)
            } else {
                bytes += [UInt8(ascii: "%"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Decodes one segment. Refused: a malformed "%" escape, bytes that are not UTF-8, and a
    /// decoded "/" or NUL (a name holding either could be read as another path).
    public static func decodeSegment(_ segment: String) throws(Error) -> String {
        var bytes: [UInt8] = []
        let source = Array(segment.utf8)
        var index = 0
        while index < source.count {
            let byte = source[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < source.count,
                      let high = hexValue(source[index + 1]), let low = hexValue(source[index + 2]) else {
                    throw Error(href: segment, message: "a \"%\" is not followed by two hexadecimal digits")
                }
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes.append(byte)
                index += 1
            }
        }
        if bytes.contains(UInt8(ascii: "/")) {
            throw Error(href: segment, message: "a name holds an encoded \"/\"")
        }
        if bytes.contains(0) {
            throw Error(href: segment, message: "a name holds an encoded NUL")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw Error(href: segment, message: "the decoded name is not UTF-8")
        }
        return text
    }

    /// The path of an href from a request body: an absolute URL (http or https; its path) or an
    /// absolute path, still percent-encoded. A relative reference, a query or a fragment is refused.
    public static func path(fromHref href: String) throws(Error) -> String {
        let trimmed = href.trimmingXMLSpace()
        var rest = Substring(trimmed)
        let lowered = trimmed.lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") {
            rest = rest.drop { $0 != ":" }.dropFirst(3)
            let pathStart = rest.firstIndex(of: "/") ?? rest.endIndex
            rest = rest[pathStart...]
            if rest.isEmpty { rest = "/" }
        }
        guard rest.hasPrefix("/") else {
            throw Error(href: href, message: "it is neither an absolute URL nor an absolute path")
        }
        if rest.contains("?") || rest.contains("#") {
            throw Error(href: href, message: "a query or fragment has no meaning here")
        }
        return String(rest)
    }

    /// The decoded segments of an absolute path ("/dav/alice/work/" → ["dav", "alice", "work"]).
    /// "." and ".." segments and empty segments inside the path are refused: no traversal, and
    /// one spelling per resource.
    public static func segments(ofPath path: String) throws(Error) -> [String] {
        guard path.hasPrefix("/") else {
            throw Error(href: path, message: "it is not an absolute path")
        }
        var raw = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if raw.last == "" { raw.removeLast() }
        var segments: [String] = []
        for part in raw {
            if part.isEmpty { throw Error(href: path, message: "it has an empty segment (\"//\")") }
            let decoded = try decodeSegment(part)
            if decoded == "." || decoded == ".." {
                throw Error(href: path, message: "it has a \"\(decoded)\" segment")
            }
            segments.append(decoded)
        }
        return segments
    }

    /// An absolute path from decoded segments, each encoded; `collection` adds the trailing "/".
    public static func encodePath(_ segments: [String], collection: Bool) -> String {
        let joined = "/" + segments.map(encodeSegment).joined(separator: "/")
        return collection && !segments.isEmpty ? joined + "/" : joined
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"): true
        default: false
        }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
