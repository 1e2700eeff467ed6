import Foundation
import CometStore

/// Where the daemon listens unless told: `$XDG_RUNTIME_DIR/cometcal/cometcald.sock`, else beside
/// the default store (`$XDG_DATA_HOME/cometcal/cometcald.sock`). Clients find it the same way.
public enum DaemonPaths {
    public static func defaultSocket(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
            return ((runtime as NSString).appendingPathComponent("cometcal") as NSString).appendingPathComponent("cometcald.sock")
        }
        var withoutDB = environment
        withoutDB["COMETCAL_DB"] = nil
        let folder = (StoreLocation.defaultPath(environment: withoutDB) as NSString).deletingLastPathComponent
        return (folder as NSString).appendingPathComponent("cometcald.sock")
    }
}
