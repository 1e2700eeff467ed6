import CometStore
import CometIntents

/// What `cometcal --version` prints. The number moves with each release of the contract.
enum Version {
    static let number = CometCalVersion.number

    static var text: String {
        "cometcal \(number) (\(StoreFactory.opener.engineDescription))"
    }
}
