import Testing
import CometStore
import CometSQLiteStore

@Suite("Who takes the WAL's checkpoints")
struct CheckpointSettingTests {
    @Test("a store opened as the CLI opens it checkpoints at SQLite's default of 1,000 pages; one that leaves them elsewhere (the daemon's writer) does not")
    func automaticCheckpoints() throws {
        let fixture = try TestStore(label: "checkpoint-setting")
        #expect(try fixture.store.automaticCheckpointPages() == 1_000)
        fixture.store.checkpointElsewhere { _ in }
        #expect(try fixture.store.automaticCheckpointPages() == 0)
    }
}
