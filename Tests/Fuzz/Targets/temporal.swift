import Foundation
import CometConversation

/// The temporal-expression parser ("next friday at noon", "every other tuesday until july")
/// against a fixed clock, in two zones (one with DST).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTemporal(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let text = FuzzSupport.text(data, size)
    let now = Date(timeIntervalSince1970: 1_781_082_000)  // 2026-06-10T09:00:00Z
    for zone in ["Europe/Berlin", "America/Los_Angeles"] {
        _ = try? TemporalParser(now: now, timeZone: TimeZone(identifier: zone)!).parse(text)
    }
    let words = text.split(whereSeparator: \.isWhitespace).map(String.init)
    _ = TemporalParser(now: now, timeZone: TimeZone(identifier: "Europe/Berlin")!, dateOrder: .dmy).extract(from: words)
    return 0
}
