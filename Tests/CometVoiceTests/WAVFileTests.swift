import Foundation
import Testing
@testable import CometVoice

/// The WAVE reader takes 16 kHz mono 16-bit PCM and refuses anything else by name, saying how
/// to convert it.
@Suite("WAVE files")
struct WAVFileTests {
    static func wave(rate: Int = 16_000, channels: Int = 1, bits: Int = 16, format: Int = 1, samples: [Int16] = [0, 1000, -1000, 32767],
                     dataSize: UInt32? = nil) -> Data {
        var data = Data()
        func u32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        func u16(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        let body = samples.count * 2
        data.append(contentsOf: Array("RIFF".utf8)); u32(UInt32(36 + body)); data.append(contentsOf: Array("WAVE".utf8))
        data.append(contentsOf: Array("fmt ".utf8)); u32(16); u16(UInt16(format)); u16(UInt16(channels)); u32(UInt32(rate))
        u32(UInt32(rate * channels * bits / 8)); u16(UInt16(channels * bits / 8)); u16(UInt16(bits))
        data.append(contentsOf: Array("data".utf8)); u32(dataSize ?? UInt32(body))
        for sample in samples { u16(UInt16(bitPattern: sample)) }
        return data
    }

    @Test("16 kHz mono 16-bit PCM is read sample for sample")
    func reads() throws {
        #expect(try WAVFile.decode(WAVFileTests.wave(), path: "a.wav") == [0, 1000, -1000, 32767])
        // Streamed to a pipe, the data's size is unknown (0xFFFFFFFF): it runs to the end.
        #expect(try WAVFile.decode(WAVFileTests.wave(dataSize: 0xFFFF_FFFF), path: "a.wav").count == 4)
    }

    @Test("another rate, more channels, 8 bits or a compressed format is refused with the sox line that converts it", arguments: [
        (44_100, 1, 16, 1, "44100 Hz"), (16_000, 2, 16, 1, "2 channels"), (16_000, 1, 8, 1, "8-bit"), (16_000, 1, 16, 3, "format 3 (not PCM)"),
    ])
    func refusesOtherFormats(_ rate: Int, _ channels: Int, _ bits: Int, _ format: Int, _ said: String) {
        #expect {
            try WAVFile.decode(WAVFileTests.wave(rate: rate, channels: channels, bits: bits, format: format), path: "talk.wav")
        } throws: { error in
            guard let error = error as? VoiceError else { return false }
            return error.code == .wrongFormat && error.place == "talk.wav" && error.message.contains(said)
                && error.message.contains("sox talk.wav -r 16000 -c 1 -b 16")
        }
    }

    @Test("a file that is not WAVE, or is cut short, is refused naming the file")
    func refusesDamage() {
        #expect(throws: VoiceError.self) { try WAVFile.decode(Data("hello there, not a wave".utf8), path: "x.wav") }
        let whole = WAVFileTests.wave()
        #expect {
            try WAVFile.decode(whole.prefix(whole.count - 3), path: "cut.wav")
        } throws: { error in
            (error as? VoiceError)?.code == .notWAV && (error as? VoiceError)?.message.contains("runs past the end") == true
        }
        #expect(throws: VoiceError.self) { try WAVFile(path: "/nonexistent/turn.wav") }
    }
}
