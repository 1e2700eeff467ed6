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

    /// A text of fixed-width fields (the date and time forms) written straight into the
    /// string's own storage, at most `capacity` bytes. Why: joining `padded` pieces with `+` made
    /// a string for every piece and every join, about 15,000 instructions for one date-time's
    /// text; an import writes several for each event it saves (8% of its instructions).
    static func text(capacity: Int, _ write: (inout Writer) -> Void) -> String {
        String(unsafeUninitializedCapacity: capacity) { buffer in
            var writer = Writer(buffer: buffer)
            write(&writer)
            return writer.count
        }
    }

    struct Writer {
        let buffer: UnsafeMutableBufferPointer<UInt8>
        private(set) var count = 0

        init(buffer: UnsafeMutableBufferPointer<UInt8>) {
            self.buffer = buffer
        }

        /// `n` (0 or more) in exactly `width` digits: the callers' fields always fit (a year is
        /// 1 to 9999, an offset's hours under 100).
        mutating func digits(_ n: Int, _ width: Int) {
            var rest = n
            var index = count + width - 1
            while index >= count {
                buffer[index] = UInt8(truncatingIfNeeded: rest % 10) + 48
                rest /= 10
                index -= 1
            }
            count += width
        }

        mutating func byte(_ value: UInt8) {
            buffer[count] = value
            count += 1
        }

        mutating func text(_ value: String) {
            for byte in value.utf8 { self.byte(byte) }
        }
    }
}
