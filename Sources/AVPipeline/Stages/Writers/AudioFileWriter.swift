internal import CFFmpeg

/// The audio file formats `AudioFileWriter` writes, each a libavformat muxer.
public enum AudioFileFormat: String, Sendable, CaseIterable {
    /// PCM in a WAV (RIFF) file.
    case wav
    /// Bare PCM samples, no header: the reader must be told the format.
    case pcm
    case flac
    /// PCM in an AIFF file (big-endian samples).
    case aiff
    /// MP3 through LAME, when the system's FFmpeg has it.
    case mp3
    /// Opus in Ogg through libopus, when the system's FFmpeg has it.
    case opus

    /// The format a file name's extension asks for, nil when it names none.
    public init?(path: String) {
        let name = path.split(separator: "/").last ?? ""
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        switch name[name.index(after: dot)...].lowercased() {
        case "wav", "wave": self = .wav
        case "pcm", "raw": self = .pcm
        case "flac": self = .flac
        case "aif", "aiff": self = .aiff
        case "mp3": self = .mp3
        case "opus": self = .opus
        default: return nil
        }
    }

    /// The encoder for PCM of `sampleFormat`; nil for WAV and raw PCM, written as they are.
    func encoder(for sampleFormat: SampleFormat) -> String? {
        switch self {
        case .wav, .pcm: nil
        case .flac: "flac"
        case .aiff:
            switch sampleFormat.packed {
            case .u8, .s16: "pcm_s16be"
            case .flt: "pcm_f32be"
            case .dbl: "pcm_f64be"
            default: "pcm_s32be"
            }
        case .mp3: "libmp3lame"
        case .opus: "libopus"
        }
    }

    var muxer: String {
        switch self {
        case .wav: "wav"
        case .pcm: ""  // the raw muxer named after the sample format (s16le, f32le…)
        case .flac: "flac"
        case .aiff: "aiff"
        case .mp3: "mp3"
        case .opus: "opus"
        }
    }
}

/// Writes PCM to an audio file of any `AudioFileFormat`: WAV and raw PCM as they are (`WAVWriter`),
/// the others through their encoder (`AudioEncoder`), at the PCM's rate and layout when the
/// format takes them. The file appears only once complete.
public final class AudioFileWriter<Upstream: SampleSource> where Upstream.Buffer == PCMBuffer {
    private let run: (((MediaTime) -> Void)?) async throws -> WriteSummary
    /// What was written (the encoder's input format for encoded formats).
    public let writtenFormat: AudioFormat

    public init(upstream: Upstream, path: String, format: AudioFileFormat? = nil, overwrite: Bool = false) throws {
        guard let format = format ?? AudioFileFormat(path: path) else {
            throw AVPipelineError.unsupportedFormat("cannot tell the audio format from '\(path)': use .wav, .flac, .aiff, .pcm, .mp3 or .opus")
        }
        guard let encoderName = format.encoder(for: upstream.outputFormat.sampleFormat) else {
            let writer = try WAVWriter(upstream: upstream, path: path, overwrite: overwrite, headerless: format == .pcm)
            writtenFormat = upstream.outputFormat
            run = { progress in try await writer.run(progress: progress) }
            return
        }
        let globalHeader = av_guess_format(format.muxer, nil, nil).map { ($0.pointee.flags & avp_fmt_globalheader()) != 0 } ?? false
        let encoder = try AudioEncoder(upstream: upstream, encoder: encoderName, globalHeader: globalHeader)
        writtenFormat = encoder.encoderInputFormat
        let writer = try SingleStreamFileWriter(path: path, muxer: format.muxer, overwrite: overwrite,
                                                parameters: encoder.outputFormat.parameters, timeBase: encoder.outputFormat.timeBase)
        run = { progress in try await drain(encoder, into: writer, progress: progress) }
    }

    /// Pulls all PCM from upstream and writes it; the file is complete and in place on return.
    @discardableResult
    public func run(progress: ((MediaTime) -> Void)? = nil) async throws -> WriteSummary { try await run(progress) }
}
