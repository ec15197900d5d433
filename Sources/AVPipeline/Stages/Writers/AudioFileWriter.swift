internal import CFFmpeg

/// The audio file formats `AudioFileWriter` writes (`Container.isAudioFile`): the name the API
/// had before there was one container type.
public typealias AudioFileFormat = Container

extension Container {
    /// A one-track audio file `AudioFileWriter` writes: .wav, .pcm, .flac, .aiff, .mp3 or .opus.
    public var isAudioFile: Bool {
        switch self {
        case .wav, .pcm, .flac, .aiff, .mp3, .opus: true
        default: false
        }
    }

    /// The encoder for PCM of `sampleFormat`; nil for WAV and raw PCM, written as they are.
    func encoder(for sampleFormat: SampleFormat) -> String? {
        switch self {
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
        default: nil
        }
    }
}

/// Writes PCM to an audio file of any `Container.isAudioFile` format: WAV and raw PCM as they are (`WAVWriter`),
/// the others through their encoder (`AudioEncoder`), at the PCM's rate and layout when the
/// format takes them. The file appears only once complete.
public final class AudioFileWriter<Upstream: SampleSource> where Upstream.Buffer == PCMBuffer {
    private let run: (((MediaTime) -> Void)?) async throws -> WriteSummary
    /// What was written (the encoder's input format for encoded formats).
    public let writtenFormat: AudioFormat

    /// Chooses the format from `format`, else from `path`'s extension, and opens its encoder; checks
    /// the output before any PCM is pulled.
    public init(upstream: Upstream, path: String, format: Container? = nil, overwrite: Bool = false) throws {
        guard let format = format ?? Container(path: path).flatMap({ $0.isAudioFile ? $0 : nil }) else {
            throw AVPipelineError.unsupportedFormat("cannot tell the audio format from '\(path)': use .wav, .flac, .aiff, .pcm, .mp3 or .opus")
        }
        guard format.isAudioFile else {
            throw AVPipelineError.unsupportedFormat("\(format.rawValue) is not an audio file format: use wav, flac, aiff, pcm, mp3 or opus")
        }
        guard let encoderName = format.encoder(for: upstream.outputFormat.sampleFormat) else {
            let writer = try WAVWriter(upstream: upstream, path: path, overwrite: overwrite, headerless: format == .pcm)
            writtenFormat = upstream.outputFormat
            run = { progress in try await writer.run(progress: progress) }
            return
        }
        let globalHeader = av_guess_format(format.muxerName, nil, nil).map { ($0.pointee.flags & avp_fmt_globalheader()) != 0 } ?? false
        let encoder = try AudioEncoder(upstream: upstream, options: .init(encoder: encoderName, globalHeader: globalHeader))
        writtenFormat = encoder.encoderInputFormat
        let writer = try SingleStreamFileWriter(path: path, muxer: format.muxerName, overwrite: overwrite,
                                                parameters: encoder.outputFormat.parameters, timeBase: encoder.outputFormat.timeBase)
        run = { progress in try await drain(encoder, into: writer, progress: progress) }
    }

    /// Pulls all PCM from upstream and writes it; the file is complete and in place on return.
    @discardableResult
    public func run(progress: ((MediaTime) -> Void)? = nil) async throws -> WriteSummary { try await run(progress) }
}
