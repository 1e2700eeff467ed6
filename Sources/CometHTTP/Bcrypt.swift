import CCrypt
import Foundation

/// bcrypt through libxcrypt's thread-safe calls (`crypt_gensalt_rn`, `crypt_rn`).
enum Bcrypt {
    /// bcrypt reads no further than this many bytes of a password.
    static let maximumPasswordBytes = 72
    static let costs = 4...31

    /// A new `$2b$` hash, salted with random bytes libxcrypt takes from the operating system
    /// (it does so when given no random bytes of its own: crypt_gensalt(3)).
    static func hash(_ password: String, cost: Int) throws(PasswordFileError) -> String {
        var setting = [CChar](repeating: 0, count: Int(CRYPT_GENSALT_OUTPUT_SIZE))
        guard crypt_gensalt_rn("$2b$", UInt(cost), nil, 0, &setting, Int32(setting.count)) != nil else {
            throw PasswordFileError(.hashFailed, "cannot make a bcrypt salt of cost \(cost): \(systemError(errno))")
        }
        guard let hashed = crypt(password, setting: cString(setting)) else {
            throw PasswordFileError(.hashFailed, "libxcrypt could not hash the password: \(systemError(errno))")
        }
        return hashed
    }

    /// Whether `password` hashes to `hash`, compared in constant time.
    static func verify(_ password: String, hash: String) -> Bool {
        guard password.utf8.count <= maximumPasswordBytes, !password.utf8.contains(0),
              let computed = crypt(password, setting: hash) else { return false }
        return constantTimeEqual(Array(computed.utf8), Array(hash.utf8))
    }

    private static func crypt(_ password: String, setting: String) -> String? {
        // struct crypt_data is 32 KB: on the heap, zeroed before (as crypt.h asks) and after.
        let size = MemoryLayout<crypt_data>.size
        let data = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: MemoryLayout<crypt_data>.alignment)
        data.initializeMemory(as: UInt8.self, repeating: 0, count: size)
        defer {
            data.initializeMemory(as: UInt8.self, repeating: 0, count: size)
            data.deallocate()
        }
        guard let output = crypt_rn(password, setting, data, Int32(size)) else { return nil }
        return String(cString: output)
    }
}

/// Equal bytes, in a time that depends on the lengths only.
func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
    var difference = UInt8(lhs.count == rhs.count ? 0 : 1)
    for index in 0..<max(lhs.count, rhs.count) {
        let left = index < lhs.count ? lhs[index] : 0
        let right = index < rhs.count ? rhs[index] : 0
        difference |= left ^ right
    }
    return difference == 0
}

/// The text of a C string held in an array (up to its first NUL).
func cString(_ characters: [CChar]) -> String {
    let bytes = characters.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
    return String(decoding: bytes, as: UTF8.self)
}

/// strerror's text for an errno value.
func systemError(_ code: Int32) -> String {
    strerror(code).map { String(cString: $0) } ?? "error \(code)"
}
