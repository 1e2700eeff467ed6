import CometICal

/// The iCalendar reader: every item of any bytes (components, problems, warnings), never a
/// crash or a hang.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzICal(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let reader = ICalReader(registry: FuzzSupport.registry, text: FuzzSupport.text(data, size))
    var items = 0
    while reader.next() != nil {
        items += 1
        if items > 1_000_000 { fatalError("the reader does not end") }
    }
    return 0
}
