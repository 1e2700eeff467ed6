import Foundation
@testable import CometDaemon

/// A raw client descriptor connected to the socket at `path`, for tests that write frames by
/// hand (and so can misbehave as a client would).
func connectUnixSocket(_ path: String) throws -> Int32 {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    let status = withUnsafePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    guard status == 0 else { close(fd); throw DaemonClient.Failure(description: "connect failed") }
    return fd
}
