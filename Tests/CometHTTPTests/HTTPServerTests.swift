import Foundation
import Synchronization
import Testing
@testable import CometHTTP

/// What a handler saw, for tests to read after the answer.
final class Recorder: Sendable {
    private let seen = Mutex<[HTTPRequest]>([])
    var requests: [HTTPRequest] { seen.withLock { $0 } }
    func record(_ request: HTTPRequest) { seen.withLock { $0.append(request) } }
}

/// A server on 127.0.0.1 and a port the system chose, stopped when the test's body returns.
func withServer(authentication: HTTPAuthentication = .none(flag: "--test-no-auth"), options: HTTPServerOptions = HTTPServerOptions(),
                handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse = { _ in .text(200, "ok\n") },
                _ body: (HTTPServer, Recorder) throws -> Void) throws {
    let recorder = Recorder()
    let server = try HTTPServer.start(listeningOn: "127.0.0.1:0", authentication: authentication, options: options) { request in
        recorder.record(request)
        return handler(request)
    }
    defer { server.stop() }
    try body(server, recorder)
}

@Suite("HTTPServer: listening, reading requests, answering")
struct HTTPServerTests {
    @Test("Port 0 listens on a port the system chose, and the server reports it")
    func ephemeralPort() throws {
        try withServer { server, _ in
            #expect(server.port != 0)
            #expect(server.address.description == "127.0.0.1:\(server.port)")
            let answer = try RawClient.exchange(port: server.port, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(answer.status == 200)
            #expect(answer.text == "ok\n")
        }
    }

    @Test("Any method token reaches the handler as sent: PROPFIND, REPORT, MKCALENDAR, a made-up one")
    func methodTokens() throws {
        try withServer(handler: { .text(207, $0.method) }) { server, recorder in
            for method in ["PROPFIND", "REPORT", "MKCALENDAR", "X-COMET-Probe"] {
                let answer = try RawClient.exchange(port: server.port, "\(method) /cal/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                #expect(answer.status == 207)
                #expect(answer.text == method)
            }
            #expect(recorder.requests.map(\.method) == ["PROPFIND", "REPORT", "MKCALENDAR", "X-COMET-Probe"])
        }
    }

    @Test("A body sent in pieces, and a chunked one, reach the handler whole")
    func bodiesArriveWhole() throws {
        let body = (0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        try withServer(handler: { .text(200, "\($0.body.count)") }) { server, recorder in
            let client = try RawClient(port: server.port)
            defer { client.close() }
            try client.send("PUT /cal/a.ics HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n")
            for start in stride(from: 0, to: body.count, by: 700_000) {
                try client.send(Array(body[start..<min(start + 700_000, body.count)]))
            }
            #expect(try client.readAnswer().text == "3000000")

            let chunked = "PUT /cal/b.ics HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n5\r\nBEGIN\r\n6\r\n:VCALE\r\n0\r\n\r\n"
            #expect(try RawClient.exchange(port: server.port, chunked).text == "11")
            let seen = recorder.requests
            try #require(seen.count == 2)
            #expect(seen[0].body == body)
            #expect(String(decoding: seen[1].body, as: UTF8.self) == "BEGIN:VCALE")
        }
    }

    @Test("Header names are looked up in any case, and a repeated header keeps every value in order")
    func headersCaseInsensitive() throws {
        try withServer { server, recorder in
            _ = try RawClient.exchange(port: server.port, "GET / HTTP/1.1\r\nHost: x\r\nX-Depth-Note: one\r\nx-depth-note: two\r\nDEPTH: 1\r\nConnection: close\r\n\r\n")
            let request = try #require(recorder.requests.first)
            #expect(request.headers["depth"] == "1")
            #expect(request.headers["Depth"] == "1")
            #expect(request.headers.values(for: "X-DEPTH-NOTE") == ["one", "two"])
            #expect(request.headers["If-Match"] == nil)
        }
    }

    @Test("The path is given as sent and percent-decoded, the query as sent, and the client's address")
    func pathsAndQuery() throws {
        try withServer { server, recorder in
            _ = try RawClient.exchange(port: server.port, "GET /cal%20one/a%2Fb+c.ics?x=1%202&y HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            _ = try RawClient.exchange(port: server.port, "GET /plain HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            let seen = recorder.requests
            try #require(seen.count == 2)
            #expect(seen[0].rawPath == "/cal%20one/a%2Fb+c.ics")
            #expect(seen[0].path == "/cal one/a/b+c.ics")
            #expect(seen[0].query == "x=1%202&y")
            #expect(seen[0].version == "HTTP/1.1")
            #expect(seen[0].remoteAddress == "127.0.0.1")
            #expect(seen[0].user == nil)
            #expect(seen[1].rawPath == "/plain")
            #expect(seen[1].query == nil)
        }
    }

    @Test("The handler's status, headers (in order, repeated) and body are what the client reads")
    func responseAsWritten() throws {
        let handler: @Sendable (HTTPRequest) -> HTTPResponse = { _ in
            var headers = HTTPHeaders()
            headers.add("DAV", "1")
            headers.add("DAV", "calendar-access")
            headers.add("ETag", "\"abc\"")
            return HTTPResponse(status: 201, headers: headers, body: Array("made".utf8))
        }
        try withServer(handler: handler) { server, _ in
            let answer = try RawClient.exchange(port: server.port, "PUT /a HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            #expect(answer.status == 201)
            #expect(answer.headers.filter { $0.name == "DAV" }.map(\.value) == ["1", "calendar-access"])
            #expect(answer.header("etag") == "\"abc\"")
            #expect(answer.text == "made")
        }
    }

    @Test("A body over the limit is answered 413 with a text, declared or chunked, and the handler is not called")
    func bodyOverLimit() throws {
        var options = HTTPServerOptions()
        options.maximumBodyBytes = 1000
        try withServer(options: options) { server, recorder in
            let declared = try RawClient.exchange(port: server.port, "PUT /a HTTP/1.1\r\nHost: x\r\nContent-Length: 1001\r\n\r\n",
                                                  body: [UInt8](repeating: 65, count: 1001))
            #expect(declared.status == 413)
            #expect(declared.text.contains("limit of 1000 bytes"))
            // Refused on the headers alone: the answer comes though no byte of the body was sent.
            let early = try RawClient(port: server.port)
            defer { early.close() }
            try early.send("PUT /big HTTP/1.1\r\nHost: x\r\nContent-Length: 50000000\r\n\r\n")
            #expect(try early.readAnswer().status == 413)
            let chunk = String(repeating: "b", count: 600)
            let chunked = try RawClient.exchange(port: server.port, "PUT /b HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n258\r\n\(chunk)\r\n258\r\n\(chunk)\r\n0\r\n\r\n")
            #expect(chunked.status == 413)
            let atLimit = try RawClient.exchange(port: server.port, "PUT /c HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\nConnection: close\r\n\r\n",
                                                 body: [UInt8](repeating: 65, count: 1000))
            #expect(atLimit.status == 200)
            #expect(recorder.requests.map(\.rawPath) == ["/c"])
        }
    }

    @Test("A broken request line is answered 400 by libmicrohttpd, and the next request is served")
    func brokenRequestLine() throws {
        try withServer { server, recorder in
            for line in ["GET / HTTP/1.1 extra", "GET /", "\u{1}\u{2} / HTTP/9"] {
                let broken = try RawClient.exchange(port: server.port, "\(line)\r\nHost: x\r\n\r\n")
                #expect(broken.status == 400, "\(line.debugDescription)")
            }
            let badHeader = try RawClient.exchange(port: server.port, "GET / HTTP/1.1\r\nnot a header\r\n\r\n")
            #expect(badHeader.status == 400)
            // A request line with no target at all: libmicrohttpd 0.9.75 closes without an answer.
            let bare = try RawClient(port: server.port)
            defer { bare.close() }
            try bare.send("GET\r\n\r\n")
            #expect(bare.isClosedByServer())
            let next = try RawClient.exchange(port: server.port, "GET /after HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(next.status == 200)
            #expect(recorder.requests.map(\.rawPath) == ["/after"])
        }
    }

    @Test("Once answered, no request's state is held: broken, refused, abandoned and served requests alike")
    func noRequestStateHeld() throws {
        var options = HTTPServerOptions()
        options.maximumBodyBytes = 10
        try withServer(options: options) { server, _ in
            _ = try RawClient.exchange(port: server.port, "GET / HTTP/1.1 extra\r\n\r\n")
            _ = try RawClient.exchange(port: server.port, "GET / HTTP/1.1\r\nnot a header\r\n\r\n")
            let abandoned = try RawClient(port: server.port)
            try abandoned.send("PUT /a HTTP/1.1\r\nHost: x\r\nContent-Length: 9\r\n\r\nabc")
            usleep(100_000)
            abandoned.close()
            _ = try RawClient.exchange(port: server.port, "PUT /a HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\n", body: Array("01234567890".utf8))
            _ = try RawClient.exchange(port: server.port, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            let deadline = Date().addingTimeInterval(5)
            while server.heldRequestStates > 0, Date() < deadline { usleep(10_000) }
            #expect(server.heldRequestStates == 0)
        }
    }

    @Test("stop() while a request is being handled lets it finish and answer, then the port is closed")
    func stopLetsRequestsFinish() throws {
        let entered = Mutex(false)
        let server = try HTTPServer.start(listeningOn: "127.0.0.1:0", authentication: .none(flag: "--test-no-auth")) { _ in
            entered.withLock { $0 = true }
            usleep(400_000)
            return .text(200, "finished")
        }
        let port = server.port
        let client = try RawClient(port: port)
        defer { client.close() }
        try client.send("GET /slow HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let deadline = Date().addingTimeInterval(5)
        while !entered.withLock({ $0 }), Date() < deadline { usleep(5_000) }
        try #require(entered.withLock { $0 })
        let stopper = Thread { server.stop() }
        stopper.start()
        let answer = try client.readAnswer()
        #expect(answer.status == 200)
        #expect(answer.text == "finished")
        server.stop()  // returns once the other thread's stop is done
        #expect(throws: RawClient.Failure.self) { _ = try RawClient(port: port) }
    }

    @Test("A HEAD answer has the headers and Content-Length of the body, and no body")
    func headLeavesOutTheBody() throws {
        try withServer(handler: { _ in .text(200, "twelve bytes") }) { server, _ in
            let client = try RawClient(port: server.port)
            defer { client.close() }
            try client.send("HEAD /a.ics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            let answer = try client.readHead()
            #expect(answer.status == 200)
            #expect(answer.header("Content-Length") == "12")
            #expect(answer.body.isEmpty)
        }
    }

    @Test("An idle connection is closed after the connection timeout")
    func idleTimeout() throws {
        var options = HTTPServerOptions()
        options.connectionTimeoutSeconds = 1
        try withServer(options: options) { server, _ in
            let client = try RawClient(port: server.port)
            defer { client.close() }
            let started = Date()
            #expect(client.isClosedByServer())
            #expect(Date().timeIntervalSince(started) < 5)
        }
    }

    @Test("Defaults: a 10 MiB body limit, 4 threads, 64 connections, 30 s idle timeout, 10 s to finish on stop")
    func defaults() {
        let options = HTTPServerOptions()
        #expect(options.maximumBodyBytes == 10 * 1024 * 1024)
        #expect(options.threadCount == 4)
        #expect(options.connectionLimit == 64)
        #expect(options.connectionTimeoutSeconds == 30)
        #expect(options.stopGraceSeconds == 10)
    }

    @Test("IPv6 loopback with brackets listens and serves")
    func ipv6Loopback() throws {
        let server = try HTTPServer.start(listeningOn: "[::1]:0", authentication: .none(flag: "--test-no-auth")) { _ in .text(200, "six") }
        defer { server.stop() }
        #expect(server.address.description == "[::1]:\(server.port)")
        let client = try RawClient(port: server.port, host: "::1")
        defer { client.close() }
        try client.send("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(try client.readAnswer().text == "six")
    }

    @Test("A port already taken is an error saying it cannot listen there")
    func portTaken() throws {
        try withServer { server, _ in
            #expect {
                _ = try HTTPServer.start(listeningOn: "127.0.0.1:\(server.port)", authentication: .none(flag: "--test-no-auth")) { _ in .text(200, "") }
            } throws: { error in
                guard let error = error as? HTTPServerError else { return false }
                return error.code == .startFailed && error.message.hasPrefix("cannot listen on 127.0.0.1:\(server.port)")
            }
        }
    }
}

@Suite("HTTPListenAddress and the loopback rule")
struct ListenAddressTests {
    @Test("Addresses are read as IPv4 host:port or [IPv6]:port; loopback is 127.0.0.0/8 and ::1")
    func parsing() throws {
        let v4 = try HTTPListenAddress("127.0.0.1:5232")
        #expect(v4.host == "127.0.0.1" && v4.port == 5232 && v4.isLoopback)
        let v6 = try HTTPListenAddress("[::1]:5232")
        #expect(v6.host == "::1" && v6.port == 5232 && v6.isLoopback)
        #expect(try HTTPListenAddress("127.8.9.10:1").isLoopback)
        #expect(try HTTPListenAddress("[::ffff:127.0.0.1]:1").isLoopback)
        #expect(try !HTTPListenAddress("0.0.0.0:5232").isLoopback)
        #expect(try !HTTPListenAddress("[::]:5232").isLoopback)
        #expect(try !HTTPListenAddress("192.168.1.4:5232").isLoopback)
    }

    @Test("Host names, missing or bad ports and bare IPv6 are refused with what to write")
    func refused() {
        for text in ["localhost:5232", "127.0.0.1", "127.0.0.1:65536", "127.0.0.1:-1", "::1:5232", "[::1]", "127.0.0.1:"] {
            #expect(throws: HTTPServerError.self, "\(text)") { _ = try HTTPListenAddress(text) }
        }
        #expect { _ = try HTTPListenAddress("localhost:5232") } throws: { error in
            (error as? HTTPServerError)?.message.contains("not a numeric IPv4 or IPv6 address") == true
        }
    }

    @Test("No authentication is refused on a non-loopback address, naming the flag; allowed on loopback")
    func unauthenticatedOnlyOnLoopback() throws {
        for address in ["0.0.0.0:0", "[::]:0"] {
            #expect {
                _ = try HTTPServer.start(listeningOn: address, authentication: .none(flag: "--caldav-no-auth")) { _ in .text(200, "") }
            } throws: { error in
                guard let error = error as? HTTPServerError else { return false }
                return error.code == .unauthenticatedNotLoopback && error.message.contains("--caldav-no-auth")
                    && error.message.contains("\(address) is not one")
            }
        }
        let server = try HTTPServer.start(listeningOn: "127.0.0.1:0", authentication: .none(flag: "--caldav-no-auth")) { _ in .text(200, "") }
        server.stop()
    }

    @Test("Options out of range are refused before anything listens")
    func badOptions() {
        var options = HTTPServerOptions()
        options.threadCount = 0
        #expect {
            _ = try HTTPServer.start(listeningOn: "127.0.0.1:0", authentication: .none(flag: "--x"), options: options) { _ in .text(200, "") }
        } throws: { error in
            (error as? HTTPServerError)?.message == "the thread count is 0; it must be 1 to 64"
        }
    }
}
