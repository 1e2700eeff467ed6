/// Zero-padded decimal digits without `String(format:)`, which goes through Foundation's
/// formatter and showed in import profiles (8% of a 50,000-event import).
enum Digits {
    /// `n` in at least `width` digits; negative numbers get a leading minus.
    static func padded(_ n: Int, _ width: Int) -> String {
        var magnitude = n.magnitude
        var digits: [UInt8] = []
        digits.reserveCapacity(max(width, 4))
        repeat {
            digits.append(UInt8(truncatingIfNeeded: magnitude % 10) + 48)
            magnitude /= 10
        } while magnitude > 0
        while digits.count < width { digits.append(48) }
        if n < 0 { digits.append(45) }
        return String(decoding: digits.reversed(), as: UTF8.self)
    }
}
