import CometSchema

/// The JSON parser: any bytes give a value or an error, never a crash; what it parses writes
/// back and parses again to the same value.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let text = FuzzSupport.text(data, size)
    guard let value = try? JSONParser.parse(text) else { return 0 }
    let written = JSONWriter.compact(value)
    guard let again = try? JSONParser.parse(written) else { fatalError("written JSON does not parse: \(written)") }
    if again != value { fatalError("round trip changed the value: \(written)") }
    return 0
}
