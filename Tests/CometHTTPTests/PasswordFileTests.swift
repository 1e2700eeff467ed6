import Foundation
import Testing
@testable import CometHTTP

@Suite("PasswordFile: bcrypt hashes, one user a line")
struct PasswordFileTests {
    @Test("Users added, replaced and removed are read back by another PasswordFile; the file is mode 0600, one name:$2b$ line each")
    func roundTrip() throws {
        try withTemporaryFolder { folder in
            let path = folder + "/conf/users"
            let file = try PasswordFile(path: path, cost: 4, allowMissing: true)
            #expect(try file.users() == [])
            #expect(try file.setPassword("one", for: "alice") == false)
            #expect(try file.setPassword("two", for: "bob.b_2-x") == false)
            #expect(try file.setPassword("three", for: "alice") == true)
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
            #expect(lines.count == 2)
            #expect(lines.allSatisfy { $0.hasPrefix("alice:$2b$04$") || $0.hasPrefix("bob.b_2-x:$2b$04$") })

            let again = try PasswordFile(path: path)
            #expect(try again.users() == ["alice", "bob.b_2-x"])
            #expect(try again.verify(user: "alice", password: "three"))
            #expect(try !again.verify(user: "alice", password: "one"))
            #expect(try again.verify(user: "bob.b_2-x", password: "two"))
            try again.remove(user: "bob.b_2-x")
            #expect(try file.users() == ["alice"])
            #expect { try again.remove(user: "bob.b_2-x") } throws: { ($0 as? PasswordFileError)?.code == .noSuchUser }
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder + "/conf")
            #expect(leftovers == ["users"])
        }
    }

    @Test("A hash written at the default cost is $2b$12$")
    func defaultCost() throws {
        try withTemporaryFolder { folder in
            let file = try PasswordFile(path: folder + "/users", allowMissing: true)
            try file.setPassword("slow", for: "alice")
            let text = try String(contentsOfFile: folder + "/users", encoding: .utf8)
            #expect(text.hasPrefix("alice:$2b$12$"))
        }
    }

    @Test("A bad line is an error naming the file and line: no colon, a bad name, not bcrypt, a cut hash, a user twice")
    func badLines() throws {
        try withTemporaryFolder { folder in
            let good = "alice:$2b$04$" + String(repeating: "a", count: 53)
            let cases: [(String, String)] = [
                ("\(good)\nbob\n", "users:2: error: 'bob' is not NAME:HASH (one user a line)"),
                ("\(good)\n\nbad name:$2b$04$\(String(repeating: "a", count: 53))\n", "users:3: error: 'bad name' is not a user name: a name is 1 to 64 of the letters A-Z and a-z, the digits 0-9, '.', '_' and '-'"),
                ("\(String(repeating: "n", count: 65)):x\n", "users:1: error: '\(String(repeating: "n", count: 65))' is not a user name"),
                ("carol:$6$salt$hash\n", "users:1: error: the hash of 'carol' is not bcrypt (it must start with $2b$, $2y$ or $2a$"),
                ("carol:$2b$04$short\n", "users:1: error: the hash of 'carol' is not a whole bcrypt hash"),
                ("\(good)\n\(good)\n", "users:2: error: 'alice' is already on line 1"),
            ]
            for (text, expected) in cases {
                try text.write(toFile: folder + "/users", atomically: true, encoding: .utf8)
                #expect {
                    _ = try PasswordFile(path: folder + "/users")
                } throws: { error in
                    guard let error = error as? PasswordFileError else { return false }
                    return error.code == .badLine && error.message.hasPrefix(folder + "/" + expected)
                }
            }
        }
    }

    @Test("A missing file is an error saying how to make one, unless missing is allowed")
    func missingFile() throws {
        try withTemporaryFolder { folder in
            #expect {
                _ = try PasswordFile(path: folder + "/none")
            } throws: { error in
                (error as? PasswordFileError)?.message == "\(folder)/none: no such password file (add a user with: cometcal user add NAME)"
            }
        }
    }

    @Test("Names and passwords that cannot be stored are refused: empty, over 72 bytes, a bad name")
    func refusedValues() throws {
        try withTemporaryFolder { folder in
            let file = try PasswordFile(path: folder + "/users", cost: 4, allowMissing: true)
            #expect { try file.setPassword("", for: "alice") } throws: { ($0 as? PasswordFileError)?.message == "the password is empty" }
            #expect {
                try file.setPassword(String(repeating: "é", count: 37), for: "alice")
            } throws: {
                ($0 as? PasswordFileError)?.message == "the password is 74 bytes long; bcrypt reads only the first 72, so choose one of at most 72 bytes"
            }
            #expect { try file.setPassword("x", for: "al/ice") } throws: { ($0 as? PasswordFileError)?.code == .badName }
            #expect { try file.setPassword("x", for: "") } throws: { ($0 as? PasswordFileError)?.code == .badName }
            #expect(try file.users() == [])
        }
    }

    @Test("A verified password is kept in memory; a changed file drops it, so the old password no longer passes")
    func keptPasswordsDroppedOnChange() throws {
        try withTemporaryFolder { folder in
            let path = folder + "/users"
            let server = try PasswordFile(path: path, cost: 4, allowMissing: true)
            try server.setPassword("old", for: "alice")
            #expect(try !server.verify(user: "alice", password: "wrong"))
            #expect(server.usersWithKeptPasswords == [])
            #expect(try server.verify(user: "alice", password: "old"))
            #expect(server.usersWithKeptPasswords == ["alice"])

            // Another process (here another PasswordFile) changes alice's password.
            let cli = try PasswordFile(path: path, cost: 4)
            try cli.setPassword("new", for: "alice")
            #expect(try !server.verify(user: "alice", password: "old"))
            #expect(server.usersWithKeptPasswords == [])
            #expect(try server.verify(user: "alice", password: "new"))
        }
    }

    @Test("$2y$ hashes (htpasswd -B) are read and verified as bcrypt")
    func htpasswdHashes() throws {
        try withTemporaryFolder { folder in
            let path = folder + "/users"
            try PasswordFile(path: path, cost: 4, allowMissing: true).setPassword("pw", for: "alice")
            let text = try String(contentsOfFile: path, encoding: .utf8).replacingOccurrences(of: "$2b$", with: "$2y$")
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            let file = try PasswordFile(path: path)
            #expect(try file.verify(user: "alice", password: "pw"))
            #expect(try !file.verify(user: "alice", password: "pW"))
        }
    }

    @Test("An unknown user is checked against a decoy hash, as long as a known user takes")
    func unknownUserDecoy() throws {
        try withTemporaryFolder { folder in
            let file = try PasswordFile(path: folder + "/users", cost: 4, allowMissing: true)
            try file.setPassword("pw", for: "alice")
            #expect(!file.hasDecoyHash)
            #expect(try !file.verify(user: "mallory", password: "pw"))
            #expect(file.hasDecoyHash)
        }
    }

    @Test("Passwords are compared in full: a longer or shorter one than the kept one fails")
    func keptComparedWhole() throws {
        try withTemporaryFolder { folder in
            let file = try PasswordFile(path: folder + "/users", cost: 4, allowMissing: true)
            try file.setPassword("abc", for: "alice")
            #expect(try file.verify(user: "alice", password: "abc"))
            #expect(try !file.verify(user: "alice", password: "abcd"))
            #expect(try !file.verify(user: "alice", password: "ab"))
            #expect(constantTimeEqual([1, 2], [1, 2]))
            #expect(!constantTimeEqual([1, 2], [1, 2, 0]))
        }
    }
}
