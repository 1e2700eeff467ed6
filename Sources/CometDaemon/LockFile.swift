import Foundation

/// One daemon per store: an exclusive `flock` on `STORE.lock`, which holds the pid and socket
/// of the daemon that has it, so a second start can say who holds it. The kernel drops the
/// lock when the process dies, however it dies.
final class LockFile: @unchecked Sendable {
    struct Held: Error, CustomStringConvertible {
        let description: String
    }

    private let fd: Int32
    private let path: String

    private init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }

    static func acquire(path: String, socket: String) throws(Held) -> LockFile {
        let folder = (path as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Held(description: "cannot open the lock file \(path): \(String(cString: strerror(errno)))") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let holder = (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            close(fd)
            throw Held(description: "another cometcald serves this store (\(holder.isEmpty ? "lock \(path)" : holder)); stop it first, or use another --db")
        }
        let text = "pid \(getpid()), socket \(socket)\n"
        _ = ftruncate(fd, 0)
        _ = text.withCString { write(fd, $0, strlen($0)) }
        return LockFile(fd: fd, path: path)
    }

    func release() {
        _ = ftruncate(fd, 0)
        flock(fd, LOCK_UN)
        close(fd)
    }
}
