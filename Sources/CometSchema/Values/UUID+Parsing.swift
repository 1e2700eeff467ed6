import Foundation

extension UUID {
    /// Parses the canonical 8-4-4-4-12 form, in either case, as `UUID(uuidString:)` does, but
    /// without its sixteen `sscanf` calls: every stored record and index row names its id as
    /// text, and Foundation's parse was a visible share of reading an agenda.
    public init?(parsing text: String) {
        var text = text
        let parsed: (UInt64, UInt64)?? = text.withUTF8 { bytes -> (UInt64, UInt64)? in
            guard bytes.count == 36 else { return nil }
            var high: UInt64 = 0
            var low: UInt64 = 0
            var digits = 0
            for position in 0..<36 {
                let unit = bytes[position]
                if position == 8 || position == 13 || position == 18 || position == 23 {
                    guard unit == UInt8(ascii: "-") else { return nil }
                    continue
                }
                let nibble: UInt8
                switch unit {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = unit &- UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = unit &- UInt8(ascii: "a") &+ 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = unit &- UInt8(ascii: "A") &+ 10
                default: return nil
                }
                if digits < 16 { high = high << 4 | UInt64(nibble) } else { low = low << 4 | UInt64(nibble) }
                digits += 1
            }
            return (high, low)
        }
        guard let parsed = parsed ?? nil else { return nil }
        let (high, low) = (parsed.0.bigEndian, parsed.1.bigEndian)
        var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &uuid) { raw in
            raw.storeBytes(of: high, toByteOffset: 0, as: UInt64.self)
            raw.storeBytes(of: low, toByteOffset: 8, as: UInt64.self)
        }
        self.init(uuid: uuid)
    }

    /// The id as two integers that order as its canonical text does (byte by byte), for sorting
    /// without making the text.
    public var orderingKey: (UInt64, UInt64) {
        withUnsafeBytes(of: uuid) { raw in
            (UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self)),
             UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
        }
    }
}

extension UUID {
    /// The canonical text in lower case, as the store keeps ids: `uuidString.lowercased()`
    /// without formatting and then copying the text again.
    public var lowercasedText: String {
        let digits = Array("0123456789abcdef".utf8)
        return withUnsafeBytes(of: uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { buffer in
                var position = 0
                for (index, byte) in bytes.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        buffer[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    buffer[position] = digits[Int(byte >> 4)]
                    buffer[position + 1] = digits[Int(byte & 0x0f)]
                    position += 2
                }
                return position
            }
        }
    }
}

extension UUID {
    /// Appends `lowercasedText`'s 36 characters.
    func appendLowercasedText(to output: inout [UInt8]) {
        let digits: StaticString = "0123456789abcdef"
        withUnsafeBytes(of: uuid) { bytes in
            for (index, byte) in bytes.enumerated() {
                if index == 4 || index == 6 || index == 8 || index == 10 { output.append(UInt8(ascii: "-")) }
                output.append(digits.utf8Start[Int(byte >> 4)])
                output.append(digits.utf8Start[Int(byte & 0x0f)])
            }
        }
    }
}
