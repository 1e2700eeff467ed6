import CMicroHTTPD

/// Where a server listens, read from text: `127.0.0.1:5232`, `[::1]:5232`, `0.0.0.0:8080`.
/// Only numeric addresses: a host name could resolve to several addresses, or to one that is
/// not loopback, and whether unauthenticated access is allowed depends on which.
/// Port 0 asks the system for a free port; `HTTPServer.port` says which it chose.
public struct HTTPListenAddress: Sendable, Hashable, CustomStringConvertible {
    /// The numeric address, without brackets.
    public let host: String
    public let port: UInt16
    let isIPv6: Bool

    public init(_ text: String) throws(HTTPServerError) {
        let hostText: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                throw HTTPServerError(.badAddress, "'\(text)' is not an address and port: write [::1]:5232 for IPv6")
            }
            hostText = text[text.index(after: text.startIndex)..<close]
            portText = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":") else {
                throw HTTPServerError(.badAddress, "'\(text)' is not an address and port: write 127.0.0.1:5232, or [::1]:5232 for IPv6")
            }
            hostText = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        guard !portText.isEmpty, portText.allSatisfy(\.isASCII), portText.allSatisfy(\.isNumber), let port = UInt16(portText) else {
            throw HTTPServerError(.badAddress, "'\(portText)' in '\(text)' is not a port (0 to 65535; 0 lets the system choose)")
        }
        var storage = sockaddr_storage()
        let family = cometcal_mhd_make_address(String(hostText), port, &storage)
        guard family != 0 else {
            throw HTTPServerError(.badAddress, "'\(hostText)' in '\(text)' is not a numeric IPv4 or IPv6 address (host names are not read: write 127.0.0.1 or [::1])")
        }
        self.host = String(hostText)
        self.port = port
        self.isIPv6 = family == AF_INET6
    }

    init(host: String, port: UInt16, isIPv6: Bool) {
        self.host = host
        self.port = port
        self.isIPv6 = isIPv6
    }

    /// 127.0.0.0/8, ::1, and IPv4 loopback written as an IPv6 mapped address.
    public var isLoopback: Bool {
        var storage = sockaddr_storage()
        guard cometcal_mhd_make_address(host, port, &storage) != 0 else { return false }
        return withUnsafeBytes(of: &storage) { raw -> Bool in
            if isIPv6 {
                let v6 = raw.load(as: sockaddr_in6.self)
                let bytes = withUnsafeBytes(of: v6.sin6_addr) { Array($0) }
                if bytes == [UInt8](repeating: 0, count: 15) + [1] { return true }
                let mappedPrefix = [UInt8](repeating: 0, count: 10) + [0xFF, 0xFF]
                return Array(bytes[0..<12]) == mappedPrefix && bytes[12] == 127
            }
            let v4 = raw.load(as: sockaddr_in.self)
            return withUnsafeBytes(of: v4.sin_addr) { $0[0] } == 127
        }
    }

    public var description: String { isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
