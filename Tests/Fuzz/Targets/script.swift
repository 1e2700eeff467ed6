import CometConversation

/// The conversation script parser (.convo): a script or a problem with its line, never a crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzScript(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    _ = try? ConversationScript.parse(FuzzSupport.text(data, size), path: "fuzz.convo")
    return 0
}
