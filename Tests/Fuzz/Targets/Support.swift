import Foundation
import CometSchema

/// What every fuzz target shares: the repository's schemas, loaded once, and a scratch folder
/// removed when the process ends. Targets run from the repository root (scripts/fuzz).
enum FuzzSupport {
    static let registry: Registry = {
        do {
            return try Registry.load(paths: [ProcessInfo.processInfo.environment["COMETCAL_FUZZ_SCHEMAS"] ?? "Schemas"])
        } catch {
            fatalError("fuzz: the schemas did not load (run from the repository root): \(error)")
        }
    }()

    static let scratch: URL = {
        // In memory (tmpfs) where there is one: a store's fsync on a busy disk once took over the
        // 1 s a fuzz input may take (libFuzzer called it a hang; the input itself took 0.5 s).
        let base = FileManager.default.fileExists(atPath: "/dev/shm") ? URL(fileURLWithPath: "/dev/shm") : FileManager.default.temporaryDirectory
        let url = base.appendingPathComponent("cometcal-fuzz-\(getpid())")
        try? FileManager.default.removeItem(at: url)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(at: FuzzSupport.scratch) }
        return url
    }()

    /// The input as text: invalid UTF-8 is part of what is fuzzed, so it is repaired the way
    /// every reader of outside text repairs it.
    static func text(_ data: UnsafePointer<UInt8>, _ size: Int) -> String {
        String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    }

    static func bytes(_ data: UnsafePointer<UInt8>, _ size: Int) -> [UInt8] {
        Array(UnsafeBufferPointer(start: data, count: size))
    }
}
