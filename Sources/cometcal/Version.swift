import CometStore

/// What `cometcal --version` prints. The number moves with each release of the contract.
enum Version {
    static let number = "0.11.0"

    static var text: String {
        "cometcal \(number) (SQLite \(SQLiteStore.libraryVersion))"
    }
}
