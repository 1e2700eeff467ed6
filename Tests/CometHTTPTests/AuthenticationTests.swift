import Foundation
import Testing
@testable import CometHTTP

/// A fresh folder for a test's password file, removed when the body returns.
func withTemporaryFolder(_ body: (String) throws -> Void) throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("comethttp-\(UUID().uuidString.prefix(8))").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    try body(folder)
}

@Suite("HTTP Basic authentication against a password file")
struct AuthenticationTests {
    static func basic(_ credentials: String) -> String {
        "Authorization: Basic \(Data(credentials.utf8).base64EncodedString())\r\n"
    }

    static func request(_ authorization: String) -> String {
        "GET /calendars/ HTTP/1.1\r\nHost: x\r\n\(authorization)Connection: close\r\n\r\n"
    }

    @Test("The right user and password reach the handler, with the user named in the request")
    func accepted() throws {
        try withTemporaryFolder { folder in
            let file = try PasswordFile(path: folder + "/users", cost: 4, allowMissing: true)
            try file.setPassword("s3cret:with:colons", for: "alice")
            try withServer(authentication: .passwordFile(file)) { server, recorder in
                let answer = try RawClient.exchange(port: server.port, Self.request(Self.basic("alice:s3cret:with:colons")))
                #expect(answer.status == 200)
                #expect(recorder.requests.map(\.user) == ["alice"])
            }
        }
    }

    @Test("No credentials, a wrong password, an unknown user and malformed headers get 401 with the Basic challenge; the handler is not called and the server goes on")
    func refused() throws {
        try withTemporaryFolder { folder in
            let file = try PasswordFile(path: folder + "/users", cost: 4, allowMissing: true)
            try file.setPassword("right", for: "alice")
            try withServer(authentication: .passwordFile(file)) { server, recorder in
                let refusals = [
                    "",
                    Self.basic("alice:wrong"),
                    Self.basic("mallory:right"),
                    Self.basic("alice"),                              // no colon
                    "Authorization: Basic !!!not base64!!!\r\n",
                    "Authorization: Basic \r\n",
                    "Authorization: Bearer abc\r\n",
                    "Authorization: Basic \(Data([0xFF, 0xFE, 0x3A, 0x41]).base64EncodedString())\r\n",  // not UTF-8
                ]
                for authorization in refusals {
                    let answer = try RawClient.exchange(port: server.port, Self.request(authorization))
                    #expect(answer.status == 401, "\(authorization)")
                    #expect(answer.header("WWW-Authenticate") == "Basic realm=\"CometCal\", charset=\"UTF-8\"")
                }
                #expect(recorder.requests.isEmpty)
                #expect(try RawClient.exchange(port: server.port, Self.request(Self.basic("alice:right"))).status == 200)
            }
        }
    }

    @Test("A refused request's body is not read: 401 comes before a declared body is sent")
    func refusedBeforeBody() throws {
        try withTemporaryFolder { folder in
            let file = try PasswordFile(path: folder + "/users", cost: 4, allowMissing: true)
            try file.setPassword("right", for: "alice")
            try withServer(authentication: .passwordFile(file)) { server, recorder in
                let client = try RawClient(port: server.port)
                defer { client.close() }
                try client.send("PUT /a.ics HTTP/1.1\r\nHost: x\r\nContent-Length: 5000000\r\n\r\n")
                let answer = try client.readAnswer()
                #expect(answer.status == 401)
                #expect(recorder.requests.isEmpty)
            }
        }
    }

    @Test("A user added to the file while the server runs can sign in at the next request; one removed cannot")
    func fileChangesReachTheServer() throws {
        try withTemporaryFolder { folder in
            let file = try PasswordFile(path: folder + "/users", cost: 4, allowMissing: true)
            try file.setPassword("first", for: "alice")
            try withServer(authentication: .passwordFile(file)) { server, _ in
                #expect(try RawClient.exchange(port: server.port, Self.request(Self.basic("bob:later"))).status == 401)
                #expect(try RawClient.exchange(port: server.port, Self.request(Self.basic("alice:first"))).status == 200)
                let cli = try PasswordFile(path: folder + "/users", cost: 4)
                try cli.setPassword("later", for: "bob")
                try cli.remove(user: "alice")
                #expect(try RawClient.exchange(port: server.port, Self.request(Self.basic("bob:later"))).status == 200)
                #expect(try RawClient.exchange(port: server.port, Self.request(Self.basic("alice:first"))).status == 401)
            }
        }
    }

    @Test("Basic credentials: the user ends at the first colon, the scheme is read in any case")
    func parsingCredentials() {
        let encoded = Data("bob:pa:ss".utf8).base64EncodedString()
        #expect(BasicCredentials(authorization: "Basic \(encoded)") == BasicCredentials(authorization: "bAsIc   \(encoded)"))
        let credentials = BasicCredentials(authorization: "Basic \(encoded)")
        #expect(credentials?.user == "bob")
        #expect(credentials?.password == "pa:ss")
        #expect(BasicCredentials(authorization: "Basic") == nil)
        #expect(BasicCredentials(authorization: "Digest \(encoded)") == nil)
    }
}
