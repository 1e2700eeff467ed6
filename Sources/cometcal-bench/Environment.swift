import Foundation

/// Where the numbers were measured: they mean little without it.
struct Environment {
    let build: String
    let cpu: String
    let cores: Int
    let sqliteVersion: String
    let system: String

    static func current() -> Environment {
        #if DEBUG
        let build = "debug"
        #else
        let build = "release"
        #endif
        var cpu = "unknown CPU"
        if let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
           let line = info.split(separator: "\n").first(where: { $0.hasPrefix("model name") }),
           let colon = line.firstIndex(of: ":") {
            cpu = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Environment(build: build, cpu: cpu, cores: ProcessInfo.processInfo.activeProcessorCount,
                           sqliteVersion: RawDatabase.version, system: ProcessInfo.processInfo.operatingSystemVersionString)
    }
}

/// What the seeded store holds, counted with a second, read-only connection.
struct StoreStats {
    var events: Int64 = 0
    var series: Int64 = 0
    var occurrenceRows: Int64 = 0
    var journalEntries: Int64 = 0
    /// Database plus write-ahead log, in bytes.
    var bytes: Int64 = 0

    static func measure(path: String) -> StoreStats? {
        guard let database = try? RawDatabase(path: path, readOnly: true) else { return nil }
        var stats = StoreStats()
        stats.events = (try? database.integer("SELECT count(*) FROM \"calendar__Event\"")) ?? 0
        stats.series = (try? database.integer("SELECT count(*) FROM \"calendar__Event__occurrences_series\"")) ?? 0
        stats.occurrenceRows = (try? database.integer("SELECT count(*) FROM \"calendar__Event__occurrences\"")) ?? 0
        stats.journalEntries = (try? database.integer("SELECT count(*) FROM _journal")) ?? 0
        for suffix in ["", "-wal"] {
            let attributes = try? FileManager.default.attributesOfItem(atPath: path + suffix)
            stats.bytes += (attributes?[.size] as? NSNumber)?.int64Value ?? 0
        }
        return stats
    }
}
