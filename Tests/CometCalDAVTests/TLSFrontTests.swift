import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import CometHTTP
import CometCalDAV
import TestThreads

/// nginx (Debian's `nginx`, installed by scripts/bootstrap) as a TLS front before a CalDAV
/// server on loopback, run as the current user from a scratch folder: its configuration, pid
/// file, logs, temporary files and a self-signed certificate made with `openssl req -x509`. The
/// `server` block is the one docs/caldav.md shows (section "Behind TLS (nginx)"), read from the
/// page, with its listening port, certificate and upstream port replaced by the test's, so the
/// page cannot show a block other than the one tested. nginx is stopped when this is released.
final class NginxFront {
    static let program = "/usr/sbin/nginx"
    let folder: URL
    let port: UInt16
    /// The certificate nginx presents, which clients are told to trust (it is its own CA).
    let certificate: URL
    private let process: Process
    /// The master's pid and its workers' when it was stopped, to check none is left.
    private(set) var processIDs: [pid_t] = []
    var base: String { "https://127.0.0.1:\(port)/" }

    init(upstreamPort: UInt16) throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.program), "nginx is not installed: run scripts/bootstrap")
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("nginx-front-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        certificate = folder.appendingPathComponent("cert.pem")
        let key = folder.appendingPathComponent("key.pem")
        var started: Process?
        do {
            try Self.run("/usr/bin/openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                                               "-keyout", key.path, "-out", certificate.path, "-days", "1",
                                               "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"])
            // nginx cannot listen on port 0 and say which port it got: take a port that is free
            // now, and try another when something else took it in between.
            var attempt = 0
            while true {
                attempt += 1
                let port = try Self.freePort()
                let configuration = folder.appendingPathComponent("nginx.conf")
                try Self.configuration(folder: folder, serverBlock: try Self.documentedServerBlock(
                    listen: "127.0.0.1:\(port) ssl", certificate: certificate.path, key: key.path, upstream: "http://127.0.0.1:\(upstreamPort)"))
                    .write(to: configuration, atomically: true, encoding: .utf8)
                let process = Process()
                process.executableURL = URL(fileURLWithPath: Self.program)
                // -e: the error log from the start, before the configuration is read (else
                // nginx's built-in path); -p: relative paths in the configuration are inside the folder.
                process.arguments = ["-p", folder.path + "/", "-c", configuration.path, "-e", folder.appendingPathComponent("error.log").path]
                process.standardOutput = FileHandle.nullDevice
                process.standardError = FileHandle.nullDevice
                try process.run()
                started = process
                if try Self.waitUntilListening(port, while: process) {
                    self.port = port
                    self.process = process
                    return
                }
                process.waitUntilExit()
                let log = (try? String(contentsOf: folder.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
                guard log.contains("Address already in use"), attempt < 5 else {
                    throw LiveServer.Failure(description: "nginx did not start (exit \(process.terminationStatus)): \(log.suffix(3000))")
                }
            }
        } catch {
            // Nothing is left behind when the front cannot be set up.
            if let started { _ = Self.stop(started) }
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: folder)
    }

    /// Stops nginx (see `stop(_:)`), keeping the pids it had.
    func stop() {
        let stopped = Self.stop(process)
        if !stopped.isEmpty { processIDs = stopped }
    }

    /// SIGTERM to the master (a fast shutdown: it stops its workers and exits), and after 10
    /// seconds SIGKILL to it and to every worker it had. The pids it had, none if it had exited.
    static func stop(_ process: Process) -> [pid_t] {
        guard process.isRunning else { return [] }
        let ids = [process.processIdentifier] + children(of: process.processIdentifier)
        process.terminate()
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        if process.isRunning {
            for id in ids { kill(id, SIGKILL) }
        }
        process.waitUntilExit()
        return ids
    }

    /// Whether any of the processes nginx had is still there.
    var anyProcessLeft: Bool { processIDs.contains { kill($0, 0) == 0 } }

    /// The `server` block in the ```nginx fence of docs/caldav.md, with the values of its
    /// `listen`, `ssl_certificate`, `ssl_certificate_key` and `proxy_pass` replaced; each of
    /// these directives must be there exactly once.
    static func documentedServerBlock(listen: String, certificate: String, key: String, upstream: String) throws -> String {
        let page = try String(contentsOf: LiveServer.repository.appendingPathComponent("docs/caldav.md"), encoding: .utf8)
        let fence = try #require(page.range(of: "```nginx\n"), "docs/caldav.md has no ```nginx block")
        let end = try #require(page.range(of: "```", range: fence.upperBound..<page.endIndex))
        var lines = page[fence.upperBound..<end.lowerBound].split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for (directive, value) in [("listen", listen), ("ssl_certificate", certificate), ("ssl_certificate_key", key), ("proxy_pass", upstream)] {
            let places = lines.indices.filter { lines[$0].split(separator: " ").first.map(String.init) == directive }
            try #require(places.count == 1, "docs/caldav.md's nginx block has \(places.count) \(directive) lines; the test replaces exactly one")
            let indent = lines[places[0]].prefix { $0 == " " }
            lines[places[0]] = "\(indent)\(directive) \(value);"
        }
        return lines.joined(separator: "\n")
    }

    /// The main and http parts around the server block: everything nginx writes is in `folder`.
    static func configuration(folder: URL, serverBlock: String) -> String {
        let path = folder.path
        // As root, the workers would switch to `nobody`, who may not reach the scratch folder's
        // temporary paths (a private $TMPDIR): they stay root here. As anyone else nginx cannot
        // switch, and `user` would only be warned about.
        let user = geteuid() == 0 ? "user root;\n" : ""
        return """
            daemon off;
            \(user)worker_processes 1;
            pid \(path)/nginx.pid;
            error_log \(path)/error.log notice;
            events { worker_connections 64; }
            http {
                access_log \(path)/access.log;
                client_body_temp_path \(path)/client_body;
                proxy_temp_path \(path)/proxy;
                fastcgi_temp_path \(path)/fastcgi;
                uwsgi_temp_path \(path)/uwsgi;
                scgi_temp_path \(path)/scgi;
            \(serverBlock)
            }

            """
    }

    /// One request through the front with Clients/tls_front.py: status, headers (lower-cased
    /// names, every value) and body.
    func request(_ method: String, _ path: String, user: String? = "alice:secret", _ options: [String] = []) throws -> Answer {
        let line = try #require(try client(["request", method, path] + (user.map { ["--user", $0] } ?? []) + options).first)
        return Answer(status: try #require(line["status"] as? Int), headers: try #require(line["headers"] as? [String: [String]]),
                      body: try #require(line["body"] as? String))
    }

    /// Clients/tls_front.py with this front's URL and certificate: its JSON lines.
    func client(_ arguments: [String]) throws -> [[String: Any]] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", LiveServer.repository.appendingPathComponent("Tests/CometCalDAVTests/Clients/tls_front.py").path,
                             base, certificate.path] + arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Its errors are read beside its output, so that neither pipe fills while the other is read.
        final class Box: @unchecked Sendable { var data = Data() }
        let problems = Box()
        let readingErrors = WorkerThreads()
        readingErrors.start { problems.data = errors.fileHandleForReading.readDataToEndOfFile() }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        readingErrors.wait()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw LiveServer.Failure(description: "tls_front.py \(arguments.prefix(3).joined(separator: " ")) exited \(process.terminationStatus): \(String(decoding: problems.data.suffix(3000), as: UTF8.self))")
        }
        return try String(decoding: data, as: UTF8.self).split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    struct Answer {
        let status: Int
        let headers: [String: [String]]
        let body: String
        /// The hrefs of a multistatus body.
        var hrefs: [String] { body.matches(of: /<D:href>([^<]*)<\/D:href>/).map { String($0.1) } }
    }

    static func run(_ program: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        let problems = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw LiveServer.Failure(description: "\(program) exited \(process.terminationStatus): \(String(decoding: problems.suffix(2000), as: UTF8.self))")
        }
    }

    /// A port on 127.0.0.1 nobody listens on now (the system's choice for port 0).
    static func freePort() throws -> UInt16 {
        let socketID = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socketID >= 0 else { throw LiveServer.Failure(description: "socket: errno \(errno)") }
        defer { close(socketID) }
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socketID, $0, length) == 0 && getsockname(socketID, $0, &length) == 0 }
        }
        guard bound else { throw LiveServer.Failure(description: "bind to 127.0.0.1:0: errno \(errno)") }
        return UInt16(bigEndian: address.sin_port)
    }

    /// Whether something accepts connections on 127.0.0.1:`port`.
    static func accepts(_ port: UInt16) -> Bool {
        let socketID = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socketID >= 0 else { return false }
        defer { close(socketID) }
        var address = loopback(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socketID, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    /// Waits up to 10 seconds for nginx to listen; false when it exited first.
    static func waitUntilListening(_ port: UInt16, while process: Process) throws -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            guard process.isRunning else { return false }
            if accepts(port) { return true }
            usleep(20_000)
        }
        throw LiveServer.Failure(description: "nginx did not listen on port \(port) within 10 seconds")
    }

    /// The processes whose parent is `parent` (nginx's workers), from /proc.
    static func children(of parent: pid_t) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> pid_t? in
            guard let id = pid_t(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let afterName = stat.range(of: ") ", options: .backwards) else { return nil }
            // After "(name) ": the state, then the parent's pid.
            let fields = stat[afterName.upperBound...].split(separator: " ")
            return fields.count > 1 && pid_t(fields[1]) == parent ? id : nil
        }
    }
}

@Suite("CalDAV behind a TLS front (nginx)", .serialized)
struct TLSFrontTests {
    static let calendarHome = "/dav/calendars/alice/"

    static let event = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\nBEGIN:VEVENT\r\nUID:perseids@example.com\r\nDTSTAMP:20260601T080000Z\r\nDTSTART:20260812T220000Z\r\nDTEND:20260813T020000Z\r\nSUMMARY:Perseids\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"

    @Test("python caldav through nginx, trusting only the test's certificate: from the bare https URL it finds alice's principal and calendar home, makes a calendar, saves, reads, finds by time range, syncs and deletes an event")
    func pythonClient() throws {
        let server = try LiveServer()
        let front = try NginxFront(upstreamPort: server.server.port)
        let lines = try front.client(["client"])
        try #require(lines.count == 7, "\(lines)")
        #expect(lines[0]["principal"] as? String == front.base + "dav/principals/alice/")
        #expect(lines[0]["home"] as? String == front.base + "dav/calendars/alice/")
        #expect(lines[1]["made"] as? String == front.base + "dav/calendars/alice/night-sky/")
        let saved = try #require(lines[2]["saved"] as? String)
        #expect(saved.hasPrefix(front.base + "dav/calendars/alice/night-sky/"))
        #expect(lines[3]["summary"] as? String == "Comet watch")
        #expect(lines[4]["june"] as? [String] == [saved])
        #expect(lines[4]["july"] as? Int == 0)
        #expect(lines[5]["synced"] as? [String] == [saved])
        #expect(lines[5]["syncedSummaries"] as? [String] == ["Comet watch"])
        #expect(lines[6]["left"] as? Int == 0)
        #expect((lines[6]["calendars"] as? [String])?.contains("Night sky") == true)
        // In the store: the calendar the client made, empty again after its DELETE.
        let made = try #require(try server.engine.calendarCollections().first { $0.title == "Night sky" })
        #expect(try server.engine.resources(in: made.id).isEmpty)
    }

    @Test("every href and Location the server sends through nginx is a path on the same host, and each one answers through it: the well-known redirect, the principal, the calendar home, a new calendar and its event")
    func pathsThroughTheFront() throws {
        let server = try LiveServer()
        let front = try NginxFront(upstreamPort: server.server.port)
        let wellKnown = try front.request("GET", "/.well-known/caldav")
        #expect(wellKnown.status == 301)
        let root = try #require(wellKnown.headers["location"]?.first)
        #expect(root == "/dav/")
        let made = try front.request("MKCALENDAR", Self.calendarHome + "night-sky/")
        #expect(made.status == 201)
        let put = try front.request("PUT", Self.calendarHome + "night-sky/perseids.ics", ["--body", Self.event, "--header", "Content-Type:text/calendar"])
        #expect(put.status == 201)
        var found = [root] + (made.headers["location"] ?? []) + (put.headers["location"] ?? [])
        let propfind = "<propfind xmlns=\"DAV:\" xmlns:C=\"urn:ietf:params:xml:ns:caldav\"><prop><current-user-principal/><C:calendar-home-set/><resourcetype/></prop></propfind>"
        for (path, depth) in [(root, "0"), ("/dav/principals/alice/", "0"), (Self.calendarHome, "1"), (Self.calendarHome + "night-sky/", "1")] {
            let listing = try front.request("PROPFIND", path, ["--body", propfind, "--header", "Depth:\(depth)"])
            #expect(listing.status == 207, "\(path): \(listing.body)")
            found += listing.hrefs
        }
        // The principal and the home from the root, the calendar from the home, the event from the calendar.
        for expected in ["/dav/principals/alice/", Self.calendarHome, Self.calendarHome + "night-sky/", Self.calendarHome + "night-sky/perseids.ics"] {
            #expect(found.contains(expected), "\(expected) is not among \(found)")
        }
        for href in Set(found) {
            #expect(href.hasPrefix("/") && !href.hasPrefix("//"), "\(href) is not a path on the same host")
            let answer = try front.request("PROPFIND", href, ["--header", "Depth:0"])
            #expect(answer.status == 207, "PROPFIND \(href) through nginx: \(answer.status) \(answer.body)")
        }
        let event = try front.request("GET", Self.calendarHome + "night-sky/perseids.ics")
        #expect(event.status == 200)
        #expect(event.body.contains("SUMMARY:Perseids"))
    }

    @Test("Basic authentication passes through nginx: no password or a wrong one gets the server's 401 with its Basic challenge, alice's password a 207, and another user's calendars stay 403")
    func passwordsThroughTheFront() throws {
        let server = try LiveServer()
        let front = try NginxFront(upstreamPort: server.server.port)
        for user in [nil, "alice:wrong", "mallory:secret"] {
            let refused = try front.request("PROPFIND", Self.calendarHome, user: user, ["--header", "Depth:0"])
            #expect(refused.status == 401, "\(user ?? "no user")")
            #expect(refused.headers["www-authenticate"] == ["Basic realm=\"CometCal\", charset=\"UTF-8\""], "\(user ?? "no user")")
        }
        #expect(try front.request("PROPFIND", Self.calendarHome, ["--header", "Depth:0"]).status == 207)
        #expect(try front.request("PROPFIND", "/dav/calendars/bob/", ["--header", "Depth:0"]).status == 403)
    }

    @Test("bodies through nginx, whose client_max_body_size is the server's 10 MiB: a body of exactly 10 MiB reaches the server, one byte more gets nginx's 413 and nothing is stored, and a chunked PUT reaches the server whole")
    func bodiesThroughTheFront() throws {
        let server = try LiveServer()
        let front = try NginxFront(upstreamPort: server.server.port)
        #expect(try front.request("MKCALENDAR", Self.calendarHome + "night-sky/").status == 201)
        let calendar = try #require(try server.engine.calendarCollections().first { $0.title == "night-sky" })
        let limit = HTTPServerOptions().maximumBodyBytes
        // Exactly the limit: past nginx, to the server, which judges the text (not iCalendar).
        let atLimit = try front.request("PUT", Self.calendarHome + "night-sky/big.ics", ["--body-bytes", String(limit), "--header", "Content-Type:text/calendar"])
        #expect(atLimit.status == 403)
        #expect(atLimit.body.contains("<C:valid-calendar-data/>"))
        let over = try front.request("PUT", Self.calendarHome + "night-sky/big.ics", ["--body-bytes", String(limit + 1), "--header", "Content-Type:text/calendar"])
        #expect(over.status == 413)
        #expect(over.body.contains("<title>413 Request Entity Too Large</title>"))
        #expect(try server.engine.resources(in: calendar.id).isEmpty)
        // Several chunks of 1,000 bytes: a description of 5,000 letters.
        let long = Self.event.replacingOccurrences(of: "SUMMARY:Perseids\r\n", with: "SUMMARY:Perseids\r\nDESCRIPTION:" + String(repeating: "m", count: 5000) + "\r\n")
        let chunked = try front.request("PUT", Self.calendarHome + "night-sky/perseids.ics", ["--body", long, "--chunked", "--header", "Content-Type:text/calendar"])
        #expect(chunked.status == 201, "\(chunked.body)")
        let back = try front.request("GET", Self.calendarHome + "night-sky/perseids.ics")
        #expect(back.body.replacingOccurrences(of: "\r\n ", with: "").contains("DESCRIPTION:" + String(repeating: "m", count: 5000) + "\r\n"))
    }

    @Test("nginx reads a body whole before passing it on: one a client sends chunked reaches the server with a Content-Length, not chunked")
    func bodiesArriveWithTheirLength() throws {
        final class Seen: @unchecked Sendable {
            let lock = NSLock()
            var requests: [(length: String?, transfer: String?, bytes: Int)] = []
        }
        let seen = Seen()
        // With a password file: a server without one refuses what comes through a proxy.
        let users = FileManager.default.temporaryDirectory.appendingPathComponent("recorder-users-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: users) }
        let passwords = try PasswordFile(path: users.path, cost: 4, allowMissing: true)
        _ = try passwords.setPassword("secret", for: "alice")
        let recorder = try HTTPServer.start(listeningOn: "127.0.0.1:0", authentication: .passwordFile(passwords), handler: { request in
            seen.lock.withLock { seen.requests.append((request.headers["Content-Length"], request.headers["Transfer-Encoding"], request.body.count)) }
            return HTTPResponse(status: 204)
        })
        defer { recorder.stop() }
        let front = try NginxFront(upstreamPort: recorder.port)
        #expect(try front.request("PUT", "/dav/calendars/alice/night-sky/long.ics", ["--body", String(repeating: "m", count: 5000), "--chunked"]).status == 204)
        let requests = seen.lock.withLock { seen.requests }
        try #require(requests.count == 1)
        #expect(requests[0].length == "5000")
        #expect(requests[0].transfer == nil)
        #expect(requests[0].bytes == 5000)
    }

    @Test("Debian's nginx.conf includes the server blocks of /etc/nginx/sites-enabled/, where docs/caldav.md says to put the block")
    func debianIncludesSitesEnabled() throws {
        let configuration = try String(contentsOfFile: "/etc/nginx/nginx.conf", encoding: .utf8)
        #expect(configuration.split(separator: "\n").contains { $0.trimmingCharacters(in: .whitespaces) == "include /etc/nginx/sites-enabled/*;" })
    }

    @Test("a server started without passwords (allowed for loopback only) refuses what comes through nginx with 403 and the reason, since the block passes X-Forwarded-For; a request from loopback without it is still served")
    func noPasswordsBehindAFront() throws {
        let server = try LiveServer()
        let service = CalDAVService(configuration: CalDAVService.Configuration(
            serve: { user, _, body in user == "alice" ? try body(server.engine) : nil }, anonymousUser: "alice"))
        let open = try HTTPServer.start(listeningOn: "127.0.0.1:0", authentication: .none(flag: "--caldav-no-auth"), handler: { service.handle($0) })
        defer { open.stop() }
        let front = try NginxFront(upstreamPort: open.port)
        let proxied = try front.request("PROPFIND", Self.calendarHome, user: nil, ["--header", "Depth:0"])
        #expect(proxied.status == 403)
        #expect(proxied.body == "This server runs without passwords (--caldav-no-auth), which is for clients on its own machine, and this request came through a proxy (X-Forwarded-For): behind a proxy, use a password file.\n")
        // Every request reaches the server from loopback: only the proxy's header tells them apart.
        let direct = "PROPFIND \(Self.calendarHome) HTTP/1.1\r\nHost: 127.0.0.1\r\nDepth: 0\r\n"
        #expect(try HostileClient.exchange(port: open.port, direct).status == 207)
        #expect(try HostileClient.exchange(port: open.port, direct + "X-Forwarded-For: 203.0.113.9\r\n").status == 403)
        #expect(try HostileClient.exchange(port: open.port, direct + "Forwarded: for=203.0.113.9\r\n").status == 403)
    }

    @Test("with the server stopped nginx answers 502; stopping nginx leaves no process, no listening port and no file behind")
    func stoppingLeavesNothing() throws {
        let server = try LiveServer()
        let folder: URL
        do {
            let front = try NginxFront(upstreamPort: server.server.port)
            folder = front.folder
            #expect(try front.request("PROPFIND", Self.calendarHome, ["--header", "Depth:0"]).status == 207)
            server.server.stop()
            #expect(try front.request("PROPFIND", Self.calendarHome, ["--header", "Depth:0"]).status == 502)
            front.stop()
            #expect(front.processIDs.count == 2, "a master and one worker: \(front.processIDs)")
            #expect(!front.anyProcessLeft)
            #expect(!NginxFront.accepts(front.port))
        }
        // Released: its folder goes with it.
        #expect(!FileManager.default.fileExists(atPath: folder.path))
    }
}
