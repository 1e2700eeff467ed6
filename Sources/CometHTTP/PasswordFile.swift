import Foundation
import Synchronization

/// Why a password file could not be read, changed or used, with a stable code.
public struct PasswordFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case missingFile = "missing-file"
        case unreadable
        case badLine = "bad-line"
        case badName = "bad-name"
        case noSuchUser = "no-such-user"
        case badPassword = "bad-password"
        case badCost = "bad-cost"
        case hashFailed = "hash-failed"
        case writeFailed = "write-failed"
    }

    public let code: Code
    public let message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

/// The users of a server: one `name:hash` line each, the hash bcrypt (`$2b$`, or `$2y$` and
/// `$2a$` as `htpasswd -B` and older tools write). Passwords already verified are kept in
/// memory (never on disk), per user, so that a client sending the same password on every
/// request pays bcrypt once; when the file changes (its inode, size or modification time) it is
/// read again and what was kept is dropped.
public final class PasswordFile: Sendable {
    public static let defaultCost = 12
    /// What a user name may be, for messages.
    public static let nameRule = "1 to 64 of the letters A-Z and a-z, the digits 0-9, '.', '_' and '-'"

    public let path: String
    /// The bcrypt cost of the hashes this writes (each step doubles the time: 12 takes about
    /// a quarter of a second).
    public let cost: Int

    private struct Entry: Sendable {
        let user: String
        let hash: String
    }

    private struct Stamp: Equatable, Sendable {
        let device: UInt64
        let inode: UInt64
        let size: Int64
        let seconds: Int
        let nanoseconds: Int
    }

    private struct Loaded: Sendable {
        var entries: [Entry] = []
        var stamp: Stamp?
        var read = false
        var verified: [String: (hash: String, password: [UInt8])] = [:]
        /// Hashed once, at this file's cost, so that an unknown user takes as long as a known one.
        var unknownUserHash: String?
    }

    private let allowsMissing: Bool
    private let loaded = Mutex(Loaded())

    /// Reads the file. A missing file is an error unless `allowMissing` (then it has no users
    /// until the first is added, which creates it).
    public init(path: String, cost: Int = PasswordFile.defaultCost, allowMissing: Bool = false) throws(PasswordFileError) {
        guard Bcrypt.costs.contains(cost) else {
            throw PasswordFileError(.badCost, "bcrypt cost \(cost) is out of range (\(Bcrypt.costs.lowerBound) to \(Bcrypt.costs.upperBound))")
        }
        self.path = path
        self.cost = cost
        self.allowsMissing = allowMissing
        try loaded.withLock { (state: inout Loaded) throws(PasswordFileError) in try refresh(&state) }
    }

    /// Why `name` cannot be a user name, or nil when it can.
    public static func nameProblem(_ name: String) -> String? {
        let allowed = name.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || scalar == "." || scalar == "_" || scalar == "-")
        }
        if allowed, (1...64).contains(name.unicodeScalars.count) { return nil }
        return "'\(Self.printable(name))' is not a user name: a name is \(nameRule)"
    }

    /// The users, in the file's order.
    public func users() throws(PasswordFileError) -> [String] {
        try loaded.withLock { (state: inout Loaded) throws(PasswordFileError) -> [String] in
            try refresh(&state)
            return state.entries.map(\.user)
        }
    }

    /// Whether `password` is `user`'s. An unknown user is false, after as long as a known one.
    public func verify(user: String, password: String) throws(PasswordFileError) -> Bool {
        let passwordBytes = Array(password.utf8)
        let (hash, kept, decoy) = try loaded.withLock { (state: inout Loaded) throws(PasswordFileError) -> (String?, (hash: String, password: [UInt8])?, String?) in
            try refresh(&state)
            return (state.entries.first { $0.user == user }?.hash, state.verified[user], state.unknownUserHash)
        }
        guard let hash else {
            let decoyHash: String
            if let decoy { decoyHash = decoy } else { decoyHash = try Bcrypt.hash("unknown user", cost: cost) }
            loaded.withLock { $0.unknownUserHash = decoyHash }
            _ = Bcrypt.verify(password, hash: decoyHash)
            return false
        }
        if let kept, kept.hash == hash, constantTimeEqual(kept.password, passwordBytes) { return true }
        // bcrypt runs outside the lock: other users' requests do not wait for it.
        guard Bcrypt.verify(password, hash: hash) else { return false }
        loaded.withLock { state in
            if state.entries.contains(where: { $0.user == user && $0.hash == hash }) {
                state.verified[user] = (hash, passwordBytes)
            }
        }
        return true
    }

    /// Adds `user`, or gives them a new password; true when the user was there. The file is
    /// written whole to a temporary file beside it (mode 0600) and renamed over it.
    @discardableResult
    public func setPassword(_ password: String, for user: String) throws(PasswordFileError) -> Bool {
        if let problem = Self.nameProblem(user) { throw PasswordFileError(.badName, problem) }
        if let problem = Self.passwordProblem(password) { throw PasswordFileError(.badPassword, problem) }
        let hash = try Bcrypt.hash(password, cost: cost)
        return try loaded.withLock { (state: inout Loaded) throws(PasswordFileError) -> Bool in
            try refresh(&state)
            var entries = state.entries
            let existed: Bool
            if let index = entries.firstIndex(where: { $0.user == user }) {
                entries[index] = Entry(user: user, hash: hash)
                existed = true
            } else {
                entries.append(Entry(user: user, hash: hash))
                existed = false
            }
            try write(entries)
            try refresh(&state)
            return existed
        }
    }

    /// Removes `user`; an error when there is no such user.
    public func remove(user: String) throws(PasswordFileError) {
        try loaded.withLock { (state: inout Loaded) throws(PasswordFileError) in
            try refresh(&state)
            guard state.entries.contains(where: { $0.user == user }) else {
                throw PasswordFileError(.noSuchUser, "\(path): no user '\(Self.printable(user))'")
            }
            try write(state.entries.filter { $0.user != user })
            try refresh(&state)
        }
    }

    /// Why a password cannot be set, or nil.
    public static func passwordProblem(_ password: String) -> String? {
        if password.isEmpty { return "the password is empty" }
        if password.utf8.contains(0) { return "the password has a NUL character, which crypt cannot take" }
        let bytes = password.utf8.count
        if bytes > Bcrypt.maximumPasswordBytes {
            return "the password is \(bytes) bytes long; bcrypt reads only the first \(Bcrypt.maximumPasswordBytes), so choose one of at most \(Bcrypt.maximumPasswordBytes) bytes"
        }
        return nil
    }

    /// Whether the decoy hash for unknown users has been made (for tests).
    var hasDecoyHash: Bool { loaded.withLock { $0.unknownUserHash != nil } }

    /// Users whose verified password is kept in memory (for tests).
    var usersWithKeptPasswords: [String] { loaded.withLock { $0.verified.keys.sorted() } }

    // MARK: - Reading and writing

    private func refresh(_ state: inout Loaded) throws(PasswordFileError) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let reason = errno
            if reason == ENOENT, allowsMissing {
                state = Loaded(unknownUserHash: state.unknownUserHash)
                state.read = true
                return
            }
            if reason == ENOENT {
                throw PasswordFileError(.missingFile, "\(path): no such password file (add a user with: cometcal user add NAME)")
            }
            throw PasswordFileError(.unreadable, "\(path): \(systemError(reason))")
        }
        let stamp = Stamp(device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
                          seconds: info.st_mtim.tv_sec, nanoseconds: info.st_mtim.tv_nsec)
        if state.read, state.stamp == stamp { return }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw PasswordFileError(.unreadable, "\(path): cannot be read (check its permissions)")
        }
        state = Loaded(entries: try Self.parse(data, path: path), stamp: stamp, read: true, unknownUserHash: state.unknownUserHash)
    }

    private static func parse(_ data: Data, path: String) throws(PasswordFileError) -> [Entry] {
        guard let text = String(data: data, encoding: .utf8) else {
            throw PasswordFileError(.badLine, "\(path): is not UTF-8 text")
        }
        var entries: [Entry] = []
        var lineOfUser: [String: Int] = [:]
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            if line.isEmpty { continue }
            guard let colon = line.firstIndex(of: ":") else {
                throw PasswordFileError(.badLine, "\(path):\(number): error: '\(printable(String(line.prefix(40))))' is not NAME:HASH (one user a line)")
            }
            let user = String(line[..<colon])
            let hash = String(line[line.index(after: colon)...])
            if let problem = nameProblem(user) {
                throw PasswordFileError(.badLine, "\(path):\(number): error: \(problem)")
            }
            if let problem = hashProblem(hash) {
                throw PasswordFileError(.badLine, "\(path):\(number): error: the hash of '\(user)' \(problem)")
            }
            if let earlier = lineOfUser[user] {
                throw PasswordFileError(.badLine, "\(path):\(number): error: '\(user)' is already on line \(earlier)")
            }
            lineOfUser[user] = number
            entries.append(Entry(user: user, hash: hash))
        }
        return entries
    }

    /// `$2b$NN$` then 53 characters of bcrypt's base64 (22 of salt, 31 of hash).
    private static func hashProblem(_ hash: String) -> String? {
        let prefixes = ["$2b$", "$2y$", "$2a$"]
        guard prefixes.contains(where: hash.hasPrefix) else {
            return "is not bcrypt (it must start with $2b$, $2y$ or $2a$; write it with: cometcal user add NAME)"
        }
        let parts = hash.split(separator: "$", omittingEmptySubsequences: false)
        let alphabet = Set("./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        guard parts.count == 4, let cost = Int(parts[2]), parts[2].count == 2, Bcrypt.costs.contains(cost),
              parts[3].count == 53, parts[3].allSatisfy({ alphabet.contains($0) }) else {
            return "is not a whole bcrypt hash ($2b$, a cost of 04 to 31, '$', then 53 characters)"
        }
        return nil
    }

    private func write(_ entries: [Entry]) throws(PasswordFileError) {
        let directory = (path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw PasswordFileError(.writeFailed, "\(directory): cannot make the folder of the password file: \(error.localizedDescription)")
        }
        var template = Array((directory + "/.\((path as NSString).lastPathComponent).XXXXXX").utf8CString)
        let descriptor = mkstemp(&template)
        guard descriptor >= 0 else {
            throw PasswordFileError(.writeFailed, "\(directory): cannot make a temporary file: \(systemError(errno))")
        }
        let temporary = cString(template)
        let text = entries.map { "\($0.user):\($0.hash)\n" }.joined()
        var failure: String?
        if fchmod(descriptor, 0o600) != 0 { failure = "cannot set its mode to 0600" }
        if failure == nil {
            let written = Array(text.utf8).withUnsafeBytes { bytes -> Bool in
                var offset = 0
                while offset < bytes.count {
                    let count = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                    if count < 0 { if errno == EINTR { continue }; return false }
                    offset += count
                }
                return true
            }
            if !written { failure = "cannot write it" } else if fsync(descriptor) != 0 { failure = "cannot flush it" }
        }
        let reason = failure == nil ? "" : systemError(errno)
        close(descriptor)
        if failure == nil, rename(temporary, path) != 0 { failure = "cannot rename it over \(path)" }
        if let failure {
            unlink(temporary)
            throw PasswordFileError(.writeFailed, "\(temporary): \(failure): \(reason.isEmpty ? systemError(errno) : reason)")
        }
    }

    static func printable(_ text: String) -> String {
        String(text.unicodeScalars.map { scalar in
            scalar.value < 0x20 || scalar.value == 0x7F ? "?" : Character(scalar)
        })
    }
}
