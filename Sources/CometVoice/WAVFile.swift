import Foundation

/// A WAVE file as the recognizer takes it: 16 kHz, one channel, 16-bit little-endian PCM. Any
/// other format is refused with the file's name, what it is, and the sox line that converts it;
/// nothing is resampled or mixed down silently.
public struct WAVFile: Sendable {
    public static let sampleRate = 16_000
    /// WAVE files for one turn are short; a larger one is refused before it is read whole.
    public static let sizeLimit = 64 * 1024 * 1024

    public let path: String
    public let samples: [Int16]

    public var seconds: Double { Double(samples.count) / Double(WAVFile.sampleRate) }

    public init(path: String) throws(VoiceError) {
        self.path = path
        if let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int, size > WAVFile.sizeLimit {
            throw VoiceError(.unreadable, place: path, "the file is \(size) bytes; a turn's WAVE file is limited to \(WAVFile.sizeLimit) bytes")
        }
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw VoiceError(.unreadable, place: path, "cannot read the file: \(error.localizedDescription)")
        }
        samples = try WAVFile.decode(data, path: path)
    }

    /// The samples of a WAVE file's bytes.
    public static func decode(_ data: Data, path: String) throws(VoiceError) -> [Int16] {
        let bytes = [UInt8](data)
        func u32(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24 }
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        func tag(_ at: Int) -> String { String(decoding: bytes[at..<(at + 4)], as: UTF8.self) }
        guard bytes.count >= 12, tag(0) == "RIFF", tag(8) == "WAVE" else {
            throw VoiceError(.notWAV, place: path, "not a WAVE file (no RIFF/WAVE header); record or convert one with: sox INPUT -r 16000 -c 1 -b 16 converted.wav")
        }
        var format: (tag: Int, channels: Int, rate: Int, bits: Int)?
        var offset = 12
        while offset + 8 <= bytes.count {
            let name = tag(offset)
            let size = u32(offset + 4)
            let body = offset + 8
            // A file written to a pipe cannot say its data's size and says 0xFFFFFFFF: the data runs to the end.
            let streamed = name == "data" && size == 0xFFFF_FFFF
            guard body + size <= bytes.count || streamed else {
                throw VoiceError(.notWAV, place: path, "the '\(name)' chunk at byte \(offset) runs past the end of the file (\(size) bytes said, \(bytes.count - body) there)")
            }
            if name == "fmt " {
                guard size >= 16 else { throw VoiceError(.notWAV, place: path, "the 'fmt ' chunk is \(size) bytes; it needs 16") }
                var formatTag = u16(body)
                // WAVE_FORMAT_EXTENSIBLE names the real format in its sub-format GUID's first two bytes.
                if formatTag == 0xFFFE, size >= 40 { formatTag = u16(body + 24) }
                format = (formatTag, u16(body + 2), u32(body + 4), u16(body + 14))
            } else if name == "data" {
                guard let format else { throw VoiceError(.notWAV, place: path, "the 'data' chunk comes before any 'fmt ' chunk") }
                guard format.tag == 1, format.channels == 1, format.rate == sampleRate, format.bits == 16 else {
                    let kind = format.tag == 1 ? "PCM" : "format \(format.tag) (not PCM)"
                    throw VoiceError(.wrongFormat, place: path,
                                     "\(kind), \(format.rate) Hz, \(format.channels) channel\(format.channels == 1 ? "" : "s"), \(format.bits)-bit; the recognizer takes 16 kHz mono 16-bit PCM: convert with sox \(path) -r 16000 -c 1 -b 16 -e signed-integer converted.wav")
                }
                let end = streamed ? bytes.count : body + size
                let count = (end - body) / 2
                var samples = [Int16](repeating: 0, count: count)
                for index in 0..<count { samples[index] = Int16(bitPattern: UInt16(u16(body + 2 * index))) }
                return samples
            }
            offset = body + size + (size & 1)
        }
        throw VoiceError(.notWAV, place: path, "no 'data' chunk: the file holds no sound")
    }

    /// A WAVE file's bytes: 16-bit mono PCM at `sampleRate`, which the header states (a
    /// synthesizer's own rate is written as it is, not resampled).
    public static func encode(_ samples: [Int16], sampleRate: Int) -> Data {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(44 + 2 * samples.count)
        func u32(_ value: Int) { for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> shift)) } }
        func u16(_ value: Int) { bytes.append(UInt8(truncatingIfNeeded: value)); bytes.append(UInt8(truncatingIfNeeded: value >> 8)) }
        let dataSize = 2 * samples.count
        bytes += Array("RIFF".utf8); u32(36 + dataSize); bytes += Array("WAVE".utf8)
        bytes += Array("fmt ".utf8); u32(16); u16(1); u16(1); u32(sampleRate); u32(sampleRate * 2); u16(2); u16(16)
        bytes += Array("data".utf8); u32(dataSize)
        for sample in samples { u16(Int(UInt16(bitPattern: sample))) }
        return Data(bytes)
    }
}
