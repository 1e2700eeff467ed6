import Foundation

/// Finds the schema directory when none is given: `--schemas`, then `COMETCAL_SCHEMAS`, then
/// `./Schemas`, then the `Schemas` folder of the source tree this binary was built from.
enum SchemaLocator {
    static func directories(flag: [String], environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        if !flag.isEmpty { return flag }
        if let fromEnvironment = environment["COMETCAL_SCHEMAS"], !fromEnvironment.isEmpty {
            return fromEnvironment.split(separator: ":").map(String.init)
        }
        if FileManager.default.fileExists(atPath: "Schemas") { return ["Schemas"] }
        let sourceTree = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Schemas").path
        return [sourceTree]
    }
}
