import Foundation
@testable import CometVoice
import CometConversation

/// Speech made for the tests, with no person: espeak-ng (or CMU Flite, the second synthesizer)
/// speaks a text, sox resamples it to 16 kHz mono 16-bit, and noise from sox is mixed in at a
/// stated signal-to-noise ratio.
enum Speech {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let examples = root.appendingPathComponent("Examples/conversations")

    /// A voice and a speed: espeak-ng's in words per minute; flite's as its `duration_stretch`
    /// in hundredths (100 is flite's own speed, 120 is each sound a fifth longer).
    struct Voice: Sendable, Hashable, CustomStringConvertible {
        enum Synthesizer: String, Sendable { case espeak = "espeak-ng", flite }
        let synthesizer: Synthesizer
        let name: String
        let speed: Int
        init(name: String, speed: Int) { self.init(.espeak, name: name, speed: speed) }
        init(_ synthesizer: Synthesizer, name: String, speed: Int) {
            self.synthesizer = synthesizer
            self.name = name
            self.speed = speed
        }
        var description: String { synthesizer == .espeak ? "\(name)@\(speed)" : "flite:\(name)@\(String(format: "%.2f", Double(speed) / 100))" }
    }

    /// Two voices (espeak-ng's American English, and its female variant f3) at two speeds.
    static let voices = [Voice(name: "en-us", speed: 150), Voice(name: "en-us+f3", speed: 175),
                         Voice(name: "en-us+f3", speed: 150), Voice(name: "en-us", speed: 175)]

    /// The second synthesizer, CMU Flite (Debian's `flite`): its clustergen voices `slt`
    /// (female) and `rms` (male), each at flite's own speed and with each sound 1.2 times as long.
    static let fliteVoices = [Voice(.flite, name: "slt", speed: 100), Voice(.flite, name: "rms", speed: 120),
                              Voice(.flite, name: "slt", speed: 120), Voice(.flite, name: "rms", speed: 100)]

    /// The Debian package each tool comes in, for the error when it is missing.
    static let packages = ["espeak-ng": "espeak-ng", "sox": "sox", "flite": "flite"]

    struct ToolFailure: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs `/usr/bin/TOOL` and returns what it wrote on standard output. A tool that is not
    /// there is an error naming its Debian package and scripts/bootstrap.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) throws -> String {
        let path = "/usr/bin/" + tool
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw ToolFailure(description: "\(path) is missing: the voice tests need Debian's \(packages[tool] ?? tool) package; run scripts/bootstrap")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let errors = Pipe(), output = Pipe()
        process.standardError = errors
        process.standardOutput = output
        try process.run()
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        let said = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ToolFailure(description: "\(tool) \(arguments.joined(separator: " ")) exited \(process.terminationStatus): \(String(decoding: said, as: UTF8.self))")
        }
        return String(decoding: printed, as: UTF8.self)
    }

    /// `text` spoken by `voice`, as 16 kHz mono samples, through files in `folder`.
    static func synthesize(_ text: String, voice: Voice, folder: URL, name: String) throws -> [Int16] {
        try speak(text, voice: voice, folder: folder, name: name).samples
    }

    /// `text` spoken by `voice`, as 16 kHz mono samples, with the words it was spoken as: for
    /// espeak-ng, `spokenWords(text)`; for flite, the words flite says it spoke (`-pw`), read
    /// by `fliteWords`. flite reads ASCII only: "…" is given as "...", and any other character
    /// outside ASCII is an error naming the text.
    static func speak(_ text: String, voice: Voice, folder: URL, name: String) throws -> (samples: [Int16], said: [String]) {
        let raw = folder.appendingPathComponent(name + "-synthesized.wav").path
        let wave = folder.appendingPathComponent(name + ".wav").path
        let said: [String]
        switch voice.synthesizer {
        case .espeak:
            try run("espeak-ng", ["-v", voice.name, "-s", String(voice.speed), "-w", raw, text])
            said = spokenWords(text)
        case .flite:
            let ascii = text.replacingOccurrences(of: "…", with: "...")
            guard ascii.unicodeScalars.allSatisfy(\.isASCII) else {
                throw ToolFailure(description: "flite reads ASCII only, and this turn has other characters: \(text)")
            }
            let printed = try run("flite", ["-voice", voice.name, "--setf", "duration_stretch=" + String(format: "%.2f", Double(voice.speed) / 100),
                                            "-pw", "-t", ascii, "-o", raw])
            said = fliteWords(printed, text: text)
        }
        try run("sox", [raw, "-r", "16000", "-c", "1", "-b", "16", "-e", "signed-integer", wave])
        return (try WAVFile(path: wave).samples, said)
    }

    /// The words flite printed (`-pw`) as the words said: a piece that starts with an apostrophe
    /// is the end of the word before it ("what 's" is "what's"); a run of two or more single
    /// letters is one word spelled out ("_a m" is "am", "t m r w" is "tmrw"; flite marks a
    /// letter said by its name with "_"); a word that is a word of the text with its
    /// apostrophe dropped takes the text's spelling ("dont" is "don't"); a piece with no letter
    /// or digit (":") is no word.
    static func fliteWords(_ printed: String, text: String) -> [String] {
        let written = Dictionary(SpokenLanguage.words(text).map { ($0.replacingOccurrences(of: "'", with: ""), $0) }, uniquingKeysWith: { first, _ in first })
        var words: [String] = []
        var letters = ""
        func endLetters() {
            if !letters.isEmpty { words.append(letters) }
            letters = ""
        }
        for piece in printed.lowercased().split(whereSeparator: \.isWhitespace).map(String.init) {
            if piece.hasPrefix("'"), letters.isEmpty, let last = words.popLast() { words.append(last + piece); continue }
            let word = piece.hasPrefix("_") ? String(piece.dropFirst()) : piece
            guard word.contains(where: { $0.isLetter || $0.isNumber }) else { continue }
            if word.count == 1, word.first?.isLetter == true { letters += word; continue }
            endLetters()
            words.append(written[word] ?? word)
        }
        endLetters()
        return words
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

    /// How much of a sound is high frequencies: the RMS of its first difference (x[n] − x[n−1],
    /// a high-pass filter whose gain rises with frequency) over its own RMS.
    static func highShare(_ samples: [Int16]) -> Double {
        guard samples.count > 1 else { return 0 }
        let difference = zip(samples.dropFirst(), samples).map { Int16(clamping: Int($0) - Int($1)) }
        return rms(difference[...]) / max(1, rms(samples[...]))
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
