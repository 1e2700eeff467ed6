import Testing
@testable import CometDAV

func hrefError(_ body: () throws(DAVHref.Error) -> some Any) -> DAVHref.Error? {
    do {
        _ = try body()
        return nil
    } catch {
        return error
    }
}

@Suite("Hrefs and path segments (RFC 3986)")
struct DAVHrefTests {
    @Test("A segment keeps unreserved characters and @, and percent-encodes every other byte of its UTF-8")
    func encodeSegment() {
        #expect(DAVHref.encodeSegment("abc-1.2_3~x@example.com") == "abc-1.2_3~x@example.com")
        #expect(DAVHref.encodeSegment("a b/c?d#e%f&g") == "a%20b%2Fc%3Fd%23e%25f%26g")
        #expect(DAVHref.encodeSegment("café") == "caf%C3%A9")
        #expect(DAVHref.encodeSegment("<\"'>") == "%3C%22%27%3E")
    }

    @Test("Decoding undoes encoding, for every byte")
    func roundTrip() throws {
        let names = ["plain.ics", "a b&c", "café 🎉", "100%", "x+y=z", String(String.UnicodeScalarView((UInt8(1)...127).filter { $0 != 47 }.map { Unicode.Scalar($0) }))]
        for name in names {
            #expect(try DAVHref.decodeSegment(DAVHref.encodeSegment(name)) == name)
        }
        #expect(try DAVHref.decodeSegment("caf%c3%a9") == "café")
    }

    @Test("Decoding refuses a broken escape, an encoded / or NUL, and bytes that are not UTF-8")
    func decodeRefusals() {
        for bad in ["%", "%2", "%zz", "a%2Fb", "a%00b", "%C3", "%FF"] {
            #expect(hrefError { () throws(DAVHref.Error) in try DAVHref.decodeSegment(bad) } != nil, "\(bad)")
        }
    }

    @Test("An href from a body becomes its path: absolute URLs lose scheme and authority, absolute paths stay")
    func pathFromHref() throws {
        #expect(try DAVHref.path(fromHref: "/dav/alice/work/a.ics") == "/dav/alice/work/a.ics")
        #expect(try DAVHref.path(fromHref: "http://127.0.0.1:5232/dav/alice/work/a%20b.ics") == "/dav/alice/work/a%20b.ics")
        #expect(try DAVHref.path(fromHref: "HTTPS://cal.example.com/dav/") == "/dav/")
        #expect(try DAVHref.path(fromHref: "https://cal.example.com") == "/")
        #expect(try DAVHref.path(fromHref: "\n  /dav/alice/ \n") == "/dav/alice/")
    }

    @Test("A relative href, another scheme, a query or a fragment is refused")
    func pathRefusals() {
        for bad in ["a.ics", "../a.ics", "mailto:alice@example.com", "/dav/a.ics?x=1", "/dav/a.ics#top", ""] {
            #expect(hrefError { () throws(DAVHref.Error) in try DAVHref.path(fromHref: bad) } != nil, "\(bad)")
        }
    }

    @Test("Segments are decoded; . and .. (encoded or not) and empty inner segments are refused")
    func segments() throws {
        #expect(try DAVHref.segments(ofPath: "/dav/alice/work/") == ["dav", "alice", "work"])
        #expect(try DAVHref.segments(ofPath: "/dav/alice/work/a%20b.ics") == ["dav", "alice", "work", "a b.ics"])
        #expect(try DAVHref.segments(ofPath: "/") == [])
        for bad in ["/dav/../bob/", "/dav/%2e%2E/bob/", "/dav/./alice", "/dav//alice", "dav/alice", "/dav/a%2Fb"] {
            #expect(hrefError { () throws(DAVHref.Error) in try DAVHref.segments(ofPath: bad) } != nil, "\(bad)")
        }
    }

    @Test("A path is written from segments, with a trailing / for a collection")
    func encodePath() {
        #expect(DAVHref.encodePath(["dav", "alice", "work"], collection: true) == "/dav/alice/work/")
        #expect(DAVHref.encodePath(["dav", "alice", "work", "a b.ics"], collection: false) == "/dav/alice/work/a%20b.ics")
        #expect(DAVHref.encodePath([], collection: true) == "/")
    }
}
