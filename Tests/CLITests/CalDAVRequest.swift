import Foundation
import Testing

/// CalDAV requests from the tests of `cometcald --caldav`, through the small python client in
/// Tests/CometCalDAVTests/Clients (a client nobody here wrote the HTTP of).
enum CalDAVRequest {
    /// Waits for the daemon's log to say where CalDAV listens, and gives the port.
    static func port(of daemon: DaemonHarness, within seconds: TimeInterval = 20) throws -> String {
        let deadline = Date().addingTimeInterval(seconds)
        var port: String?
        while port == nil, Date() < deadline {
            port = daemon.readLog().firstMatch(of: /CalDAV on http:\/\/127\.0\.0\.1:(\d+)\/dav\//).map { String($0.1) }
            if port == nil { usleep(20_000) }
        }
        return try #require(port, "\(daemon.readLog())")
    }

    /// The status of one request as `user`, whose password is `pw-USER`.
    static func status(_ port: String, _ method: String, _ path: String, _ user: String) throws -> Int {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", CLIRunner.repositoryRoot.appendingPathComponent("Tests/CometCalDAVTests/Clients/request.py").path, port, method, path, user, "pw-\(user)"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let answer = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try #require(answer["status"] as? Int)
    }
}
