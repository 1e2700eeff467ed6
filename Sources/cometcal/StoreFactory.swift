import CometStore
import CometSQLiteStore

/// The command line's composition root for storage: the one place in `cometcal` that names the
/// database it is built with. Every command, completion and the conversation's script world open
/// stores through `opener`.
enum StoreFactory {
    static let opener: StoreOpener = SQLiteStore.opener
}
