/// CometCal's version, the one place it is written: `cometcal --version`, `cometcald --version`
/// and the daemon's `health` all say this. It moves with each release of the contract.
public enum CometCalVersion {
    public static let number = "0.11.0"
}
