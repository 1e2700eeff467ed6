import Foundation

/// What went wrong on the way from sound to words: a stable code, the place (a file, the
/// model folder, the decoder call) and what to do about it.
public struct VoiceError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// The file cannot be read.
        case unreadable
        /// Not a RIFF/WAVE file, or one whose chunks are damaged.
        case notWAV
        /// A WAVE file, but not 16 kHz mono 16-bit PCM.
        case wrongFormat
        /// The acoustic model, the dictionary or a language model is missing.
        case missingModel
        /// The decoder refused its configuration or a call failed.
        case decoder
        /// The language could not be compiled or written.
        case language
        /// espeak-ng could not synthesize a reply.
        case synthesizer
        /// No sound server or device to play to or record from (PulseAudio), or it went away.
        case audioDevice
    }

    public let code: Code
    /// The file or the call concerned.
    public let place: String
    public let message: String

    public init(_ code: Code, place: String, _ message: String) {
        self.code = code
        self.place = place
        self.message = message
    }

    public var description: String { "\(place): \(message)" }
}
