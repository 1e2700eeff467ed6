import Foundation

/// Finds the schema directory when none is given: `--schemas`, then `COMETCAL_SCHEMAS`, then
/// `./Schemas`, then the `Schemas` folder of the source tree this binary was built from.
public enum SchemaLocator {
    public static func directories(flag: [String], environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        if !flag.isEmpty { return flag }
        if let fromEnvironment = environment["COMETCAL_SCHEMAS"], !fromEnvironment.isEmpty {
            return fromEnvironment.split(separator: ":").map(String.init)
        }
        if FileManager.default.fileExists(atPath: "Schemas") { return ["Schemas"] }
        // Sources/CometSchema/Registry/this file → the repository root.
        let sourceTree = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Schemas").path
        return [sourceTree]
    }
}

extension SchemaLocator {
    /// The values of `--schemas` found before full parsing (the schemas shape the command tree).
    public static func schemaFlags(in arguments: [String]) -> [String] {
        var values: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" { break }
            if argument == "--schemas", index + 1 < arguments.count {
                values.append(arguments[index + 1])
                index += 2
                continue
            }
            if argument.hasPrefix("--schemas=") { values.append(String(argument.dropFirst("--schemas=".count))) }
            index += 1
        }
        return values
    }
}
