import Foundation

/// Finds where speech starts and ends in a stream of 16 kHz samples, by energy over the measured
/// noise floor with a hangover (pocketsphinx 0.8 from Debian has no endpointer of its own:
/// `ps_endpointer` came with 5.0).
///
/// - The stream is cut into 10 ms frames; each frame's level is its RMS.
/// - The first `calibrationFrames` (0.2 s) measure the room's noise floor: nothing in them
///   starts speech. After that, the floor follows the quiet frames slowly (a frame under the
///   end threshold moves it 5% of the way), so a room that gets louder is followed. A floor under
///   `minimumFloor` (digital silence, a muted input) counts as `minimumFloor`, so that a faint
///   hiss is not taken for speech.
/// - Speech starts after `startFrames` frames in a row at `startRatio` times the floor (12 dB
///   over it); the `prerollFrames` before them (0.3 s) are kept, since a word's first sound is
///   quieter than its middle.
/// - Speech ends after `hangoverFrames` frames in a row (0.5 s) under `endRatio` times the floor
///   (6 dB over it); the utterance keeps that tail.
/// - An utterance longer than `maximumSeconds` is cut there, and says so (`cut`).
public struct Endpointer: Sendable {
    public static let frameSamples = WAVFile.sampleRate / 100
    public var calibrationFrames = 20
    public var startFrames = 3
    public var startRatio = 4.0
    public var endRatio = 2.0
    public var hangoverFrames = 50
    public var prerollFrames = 30
    public var minimumFloor = 30.0
    public var maximumSeconds = 15.0

    /// One stretch of speech, with its preroll and hangover.
    public struct Utterance: Sendable {
        public let samples: [Int16]
        /// Cut at `maximumSeconds`: the rest of the speech starts the next utterance.
        public let cut: Bool
        /// The noise floor (RMS) it was measured against.
        public let floor: Double
        public var seconds: Double { Double(samples.count) / Double(WAVFile.sampleRate) }
    }

    /// The noise floor's RMS, once measured.
    public private(set) var floor: Double?
    private var calibration: [Double] = []
    private var pending: [Int16] = []
    private var preroll: [[Int16]] = []
    private var loudRun = 0
    private var quietRun = 0
    private var speech: [Int16]?

    public init() {}

    /// Takes samples in any amounts; returns the utterances they finished.
    public mutating func feed(_ samples: [Int16]) -> [Utterance] {
        pending += samples
        var finished: [Utterance] = []
        var start = 0
        while pending.count - start >= Endpointer.frameSamples {
            let frame = Array(pending[start..<(start + Endpointer.frameSamples)])
            start += Endpointer.frameSamples
            if let utterance = take(frame) { finished.append(utterance) }
        }
        pending.removeFirst(start)
        return finished
    }

    private mutating func take(_ frame: [Int16]) -> Utterance? {
        let level = (frame.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(frame.count)).squareRoot()
        guard let measured = floor else {
            calibration.append(level)
            if calibration.count >= calibrationFrames { floor = calibration.reduce(0, +) / Double(calibration.count) }
            return nil
        }
        let base = max(measured, minimumFloor)
        if var current = speech {
            current += frame
            quietRun = level < base * endRatio ? quietRun + 1 : 0
            if quietRun >= hangoverFrames {
                speech = nil
                quietRun = 0
                return Utterance(samples: current, cut: false, floor: base)
            }
            if Double(current.count) >= maximumSeconds * Double(WAVFile.sampleRate) {
                speech = []
                return Utterance(samples: current, cut: true, floor: base)
            }
            speech = current
            return nil
        }
        if level < base * endRatio { floor = measured * 0.95 + level * 0.05 }
        preroll.append(frame)
        if preroll.count > prerollFrames + startFrames { preroll.removeFirst() }
        loudRun = level >= base * startRatio ? loudRun + 1 : 0
        if loudRun >= startFrames {
            speech = preroll.flatMap { $0 }
            preroll = []
            loudRun = 0
            quietRun = 0
        }
        return nil
    }

    /// What is left when the stream ends: the speech under way, if any (not cut: it simply ended).
    public mutating func finish() -> Utterance? {
        defer { speech = nil }
        guard let current = speech, !current.isEmpty else { return nil }
        return Utterance(samples: current, cut: false, floor: max(floor ?? minimumFloor, minimumFloor))
    }
}
