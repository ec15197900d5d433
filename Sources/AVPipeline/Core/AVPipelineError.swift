/// Everything that can go wrong in a pipeline, typed so callers (and the CLI's exit codes) can tell
/// a bad input from an unwritable output from an unsupported codec. End of stream is not an error:
/// sources return `nil`.
public enum AVPipelineError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The input file does not exist.
    case fileNotFound(path: String)
    /// The input exists but cannot be read (permissions, a folder, an I/O error).
    case notReadable(path: String, reason: String)
    /// No demuxer recognises the input as media.
    case notAMediaFile(path: String, reason: String)
    /// The input has no audio track (or not the one asked for).
    case noAudioStream(path: String)
    /// The input has no video track (or not the one asked for).
    case noVideoStream(path: String)
    /// The media is damaged or cut short: `position` says where, when it is known.
    case invalidData(path: String, position: MediaTime?, reason: String)
    /// The input asks to read something it was not given (another file, a network address) and
    /// `InputPolicy` does not allow that.
    case inputPolicy(path: String, reason: String)
    /// The input declares values beyond `InputPolicy`'s limits (dimensions, channels, sample rate),
    /// refused before anything is allocated for them.
    case exceedsLimits(path: String, reason: String)
    /// A PCM sample format a stage cannot take.
    case unsupportedSampleFormat(String)
    /// A codec, profile or encoder this FFmpeg or the output cannot handle (FLAC in MP4, no native AAC encoder).
    case unsupportedCodec(String)
    /// A container or file kind the output cannot be, or that cannot hold what is written.
    case unsupportedFormat(String)
    /// An option out of range or contradicting another (an output that is the input): a usage error.
    case invalidOption(name: String, value: String, reason: String)
    /// The output cannot be created: its folder is missing or read-only.
    case outputNotWritable(path: String, reason: String)
    /// The output exists and overwriting was not asked for.
    case outputExists(path: String)
    /// Writing the output failed part-way (disk full, I/O error); nothing is left in its place.
    case outputWriteFailed(path: String, reason: String)
    /// The pulling task was cancelled (or the demuxer was): the pipeline stopped within one buffer.
    case cancelled
    /// An FFmpeg allocation failed.
    case outOfMemory
    /// A device the pipeline needs could not be opened: no display (DISPLAY unset, no X server), no
    /// sound server or card, an unknown device name. `reason` says why and what to do about it.
    case deviceUnavailable(DeviceKind, reason: String)
    /// An FFmpeg call failed in a way none of the cases above describes.
    case ffmpeg(call: String, code: Int32, message: String)

    /// What kind of failure this is: the CLI maps each kind to one documented exit code.
    public enum Category: Sendable {
        /// A bad option or value (exit code 64).
        case usage
        /// A missing, unreadable, damaged or refused input (66).
        case input
        /// An output that cannot be written (73).
        case output
        /// A codec, format or device this build or machine cannot handle (69).
        case unsupported
        /// Cancelled: SIGINT or SIGTERM in the CLI (130).
        case interrupted
        /// An internal FFmpeg failure (70).
        case software
    }

    /// The kind of this failure (see `Category`).
    public var category: Category {
        switch self {
        case .fileNotFound, .notReadable, .notAMediaFile, .noAudioStream, .noVideoStream, .invalidData,
             .inputPolicy, .exceedsLimits: .input
        case .unsupportedSampleFormat, .unsupportedCodec, .unsupportedFormat: .unsupported
        // EX_UNAVAILABLE (69): a service the command needs is not there.
        case .deviceUnavailable: .unsupported
        case .invalidOption: .usage
        case .outputNotWritable, .outputExists, .outputWriteFailed: .output
        case .cancelled: .interrupted
        case .outOfMemory, .ffmpeg: .software
        }
    }

    /// One line for a person: what failed, on which input or output, and why. The secrets of any URL
    /// in it are hidden (`Redaction`), so it can be printed or logged as it is.
    public var description: String { Redaction.redact(unredactedDescription) }

    /// `description` with URLs exactly as given, passwords and stream keys included: for code that
    /// needs them on purpose, never for a log.
    public var unredactedDescription: String {
        switch self {
        case .fileNotFound(let path): "'\(path)': no such file"
        case .notReadable(let path, let reason): "'\(path)': cannot be read: \(reason)"
        case .notAMediaFile(let path, let reason): "'\(path)': not a media file FFmpeg can read (\(reason))"
        case .noAudioStream(let path): "'\(path)': has no audio track"
        case .noVideoStream(let path): "'\(path)': has no video track"
        case .invalidData(let path, let position, let reason):
            if let position { "'\(path)': invalid data at \(position): \(reason)" } else { "'\(path)': invalid data: \(reason)" }
        case .inputPolicy(let path, let reason): "'\(path)': refused: \(reason)"
        case .exceedsLimits(let path, let reason): "'\(path)': refused: \(reason)"
        case .unsupportedSampleFormat(let what): "unsupported sample format: \(what)"
        case .unsupportedCodec(let what): "unsupported codec: \(what)"
        case .unsupportedFormat(let what): "unsupported format: \(what)"
        case .invalidOption(let name, let value, let reason): "invalid value '\(value)' for \(name): \(reason)"
        case .outputNotWritable(let path, let reason): "'\(path)': cannot write output: \(reason)"
        case .outputExists(let path): "'\(path)': output exists (pass --overwrite to replace it)"
        case .outputWriteFailed(let path, let reason): "'\(path)': writing failed: \(reason)"
        case .cancelled: "cancelled"
        case .outOfMemory: "out of memory"
        case .deviceUnavailable(let device, let reason): "no \(device) available: \(reason)"
        case .ffmpeg(let call, let code, let message): "\(call) failed: \(message) (\(code))"
        }
    }
}
