import Foundation
@testable import CometVoice
import CometConversation

/// Speech made for the tests, with no person: espeak-ng speaks a text, sox resamples it to
/// 16 kHz mono 16-bit, and noise from sox is mixed in at a stated signal-to-noise ratio.
enum Speech {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let examples = root.appendingPathComponent("Examples/conversations")

    /// A voice and a speed (words per minute).
    struct Voice: Sendable, Hashable, CustomStringConvertible {
        let name: String
        let speed: Int
        var description: String { "\(name)@\(speed)" }
    }

    /// Two voices (espeak-ng's American English, and its female variant f3) at two speeds.
    static let voices = [Voice(name: "en-us", speed: 150), Voice(name: "en-us+f3", speed: 175),
                         Voice(name: "en-us+f3", speed: 150), Voice(name: "en-us", speed: 175)]

    struct ToolFailure: Error, CustomStringConvertible {
        let description: String
    }

    static func run(_ tool: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/" + tool)
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let said = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ToolFailure(description: "\(tool) \(arguments.joined(separator: " ")) exited \(process.terminationStatus): \(String(decoding: said, as: UTF8.self))")
        }
    }

    /// `text` spoken by `voice`, as 16 kHz mono samples, through files in `folder`.
    static func synthesize(_ text: String, voice: Voice, folder: URL, name: String) throws -> [Int16] {
        let raw = folder.appendingPathComponent(name + "-espeak.wav").path
        let wave = folder.appendingPathComponent(name + ".wav").path
        try run("espeak-ng", ["-v", voice.name, "-s", String(voice.speed), "-w", raw, text])
        try run("sox", [raw, "-r", "16000", "-c", "1", "-b", "16", "-e", "signed-integer", wave])
        return try WAVFile(path: wave).samples
    }

    /// White noise from sox, 16 kHz mono, `seconds` long (the same seed gives the same noise).
    static func noise(seconds: Int, folder: URL) throws -> [Int16] {
        let path = folder.appendingPathComponent("noise.wav").path
        try run("sox", ["-R", "-n", "-r", "16000", "-c", "1", "-b", "16", "-e", "signed-integer", path, "synth", String(seconds), "whitenoise", "vol", "0.3"])
        return try WAVFile(path: path).samples
    }

    static func rms(_ samples: ArraySlice<Int16>) -> Double {
        guard !samples.isEmpty else { return 0 }
        return (samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count)).squareRoot()
    }

    /// The speech with noise added at `snr` dB: the noise's gain is set from the two measured
    /// RMS levels over the whole utterance, so that 20·log10(speech RMS / scaled noise RMS) is
    /// `snr`. Samples that would clip are counted in `clipped`, not hidden.
    static func mix(_ speech: [Int16], noise: [Int16], offset: Int, snr: Double, clipped: inout Int) -> [Int16] {
        let start = offset % max(1, noise.count - speech.count)
        let segment = noise[start..<(start + speech.count)]
        let gain = rms(speech[...]) / (rms(segment) * pow(10, snr / 20))
        var mixed = [Int16](repeating: 0, count: speech.count)
        for index in speech.indices {
            let value = Double(speech[index]) + gain * Double(segment[segment.startIndex + index])
            if abs(value) > 32767 { clipped += 1 }
            mixed[index] = Int16(max(-32768, min(32767, value.rounded())))
        }
        return mixed
    }

    /// The words a turn is spoken as, for the word error rate: the conversation's words, with
    /// digits read as espeak-ng reads them ("1pm" is "one pm", "11:30" is "eleven thirty", "16th"
    /// is "sixteenth"). Written for the examples' forms; a form it does not know stays as is and
    /// counts as an error, which keeps the rate an upper bound.
    static func spokenWords(_ text: String) -> [String] {
        var words: [String] = []
        for raw in SpokenLanguage.words(text.replacingOccurrences(of: "/", with: " ").replacingOccurrences(of: "-", with: " ")) {
            var word = raw
            var suffix: [String] = []
            for meridiem in ["am", "pm", "a", "p"] where word.hasSuffix(meridiem) && word.dropLast(meridiem.count).last?.isNumber == true {
                word = String(word.dropLast(meridiem.count))
                suffix = [meridiem.count == 1 ? meridiem + "m" : meridiem]
                break
            }
            if let colon = word.firstIndex(of: ":"), let hour = Int(word[..<colon]), let minute = Int(word[word.index(after: colon)...]) {
                words += NumberWords.spell(hour) + (minute == 0 ? [] : minute < 10 ? ["oh"] + NumberWords.spell(minute) : NumberWords.spell(minute)) + suffix
                continue
            }
            if let number = Int(word), number < 100 { words += NumberWords.spell(number) + suffix; continue }
            for ending in ["st", "nd", "rd", "th"] where word.hasSuffix(ending) {
                if let number = Int(word.dropLast(2)), number < 40 { word = ordinal(number); break }
            }
            words.append(word)
            words += suffix
        }
        return words
    }

    static func ordinal(_ number: Int) -> String {
        let special = [1: "first", 2: "second", 3: "third", 5: "fifth", 8: "eighth", 9: "ninth", 12: "twelfth", 20: "twentieth", 30: "thirtieth"]
        if let word = special[number] { return word }
        if number < 20 { return NumberWords.units[number] + "th" }
        let tens = NumberWords.tens[number / 10]
        return number % 10 == 0 ? String(tens.dropLast()) + "ieth" : tens + " " + ordinal(number % 10)
    }

    /// Where the word errors of one least-cost alignment are: for each error, the position of
    /// the word said (a substitution or a deletion), or nil for a word heard where none was
    /// said (an insertion). As many as `wordErrors` counts.
    static func errorPositions(_ reference: [String], _ heard: [String]) -> [Int?] {
        var cost = [[Int]](repeating: [Int](repeating: 0, count: heard.count + 1), count: reference.count + 1)
        for row in 0...reference.count { cost[row][0] = row }
        for column in 0...heard.count { cost[0][column] = column }
        for row in stride(from: 1, through: reference.count, by: 1) {
            for column in stride(from: 1, through: heard.count, by: 1) {
                cost[row][column] = min(cost[row - 1][column] + 1, cost[row][column - 1] + 1,
                                        cost[row - 1][column - 1] + (reference[row - 1] == heard[column - 1] ? 0 : 1))
            }
        }
        var errors: [Int?] = []
        var (row, column) = (reference.count, heard.count)
        while row > 0 || column > 0 {
            if row > 0, column > 0, cost[row][column] == cost[row - 1][column - 1] + (reference[row - 1] == heard[column - 1] ? 0 : 1) {
                if reference[row - 1] != heard[column - 1] { errors.append(row - 1) }
                (row, column) = (row - 1, column - 1)
            } else if row > 0, cost[row][column] == cost[row - 1][column] + 1 {
                errors.append(row - 1)
                row -= 1
            } else {
                errors.append(nil)
                column -= 1
            }
        }
        return errors.reversed()
    }

    /// Word-level Levenshtein distance (substitutions, insertions, deletions): the numerator
    /// of the word error rate.
    static func wordErrors(_ reference: [String], _ heard: [String]) -> Int {
        var previous = Array(0...heard.count)
        for (row, word) in reference.enumerated() {
            var current = [row + 1]
            for (column, other) in heard.enumerated() {
                current.append(min(previous[column + 1] + 1, current[column] + 1, previous[column] + (word == other ? 0 : 1)))
            }
            previous = current
        }
        return previous[heard.count]
    }
}
