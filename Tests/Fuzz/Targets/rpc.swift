import Foundation
import CometSchema
import CometStore
import CometSQLiteStore
@testable import CometDaemon

/// JSON-RPC framing and dispatch: bytes as a client would send them (Content-Length frames,
/// garbage, halves), decoded, and every whole frame answered by the daemon's dispatch on a
/// temporary store, as a connection would be.
nonisolated(unsafe) let rpcService: DaemonService = {
    let configuration = DaemonService.Configuration(store: .file(FuzzSupport.scratch.appendingPathComponent("rpc.sqlite").path), opener: SQLiteStore.opener,
                                                    schemaPaths: [ProcessInfo.processInfo.environment["COMETCAL_FUZZ_SCHEMAS"] ?? "Schemas"],
                                                    timeZone: TimeZone(identifier: "Europe/Berlin")!, readers: 1)
    return try! DaemonService(configuration: configuration)
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRPC(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    var decoder = FrameDecoder(limits: FrameDecoder.Limits(headerBytes: 8 * 1024, bodyBytes: 1024 * 1024))
    // Fed in two parts, split where the first byte says, as reads split a stream.
    let bytes = FuzzSupport.bytes(data, size)
    let cut = bytes.isEmpty ? 0 : Int(bytes[0]) % (bytes.count + 1)
    for part in [bytes[..<cut], bytes[cut...]] {
        decoder.append(part)
        var frames = 0
        while let event = decoder.next() {
            frames += 1
            if frames > 10_000 { fatalError("the decoder does not end") }
            guard case .message(let body) = event else { continue }
            _ = Daemon.answer(body, service: rpcService, connection: 1)
        }
    }
    return 0
}
