import ArgumentParser
import AVPipeline

/// `avpipe encode`: a movie's pictures to H.264 (or HEVC, VP9, AV1) and its sound to AAC, in any
/// container that holds them (`MovieEncodeJob`); any audio → AAC-LC in ADTS (.aac) or MP4/M4A. A
/// PCM WAV goes through `FileCapture` (the series' capture stage, chunked like a microphone);
/// other audio through `AudioFileSource` (demux → decode).
struct Encode: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Encode video to H.264 (HEVC, VP9, AV1) and audio to AAC: a movie into MP4/MOV/MKV/WebM/TS/HLS or .h264, any audio into .aac or .m4a.",
        discussion: """
        Every track the output can carry is kept: the video encoded with libx264 at ffmpeg's defaults \
        (crf 23, preset medium; VP9 and Opus for .webm), every audio track to AAC-LC (--audio-track N: \
        that one only), subtitles and Matroska attachments copied (or converted, as remux does; \
        --no-subtitles leaves them out). Each picture is encoded once, at its own time; tags and chapters \
        are kept. A rotated video keeps its rotation in MP4/MOV/fMP4 HLS; elsewhere its pictures are \
        turned upright. --width/--height mean the picture as displayed.
        Examples: avpipe encode --in movie.mkv --out movie.mp4
                  avpipe encode -i movie.mp4 small.mp4 --crf 28 --preset veryfast --width 640
                  avpipe encode --in camera.y4m --out camera.h264 --tune zerolatency --profile baseline --gop 30
                  avpipe encode --in movie.mp4 --out live/index.m3u8 --segment 4 --video-bitrate 2M --maxrate 2M --bufsize 4M
                  avpipe encode --in pcm.wav --out test.aac --bitrate 96000
                  avpipe encode --in song.flac --out song.m4a --bitrate 192k
                  avpipe encode --in movie.mkv --out sound.m4a --audio-track 1 --channels 2 --start 1:00 --duration 30
        """
    )

    @Option(name: [.customLong("in"), .customShort("i")], help: ArgumentHelp("What to encode: a movie (any file FFmpeg reads with a video track, .y4m included), a PCM WAV, or any file with an audio track (MP3, FLAC, Opus, M4A…).", valueName: "file"))
    var inputOption: String?

    @Option(name: .customLong("out"), help: ArgumentHelp("Output file: .mp4, .mov, .mkv, .webm, .ts, .m3u8 (an HLS playlist; its segments go beside it), .h264/.h265 (raw Annex B video), .aac (ADTS) or .m4a.", valueName: "file"))
    var outputOption: String?

    @Argument(help: ArgumentHelp("Input and/or output as bare names, as ffmpeg takes them (avpipe encode in.wav out.aac, or -i in.wav out.aac).", valueName: "files"))
    var files: [String] = []

    /// The input and output, from --in/-i and --out or from the bare names (validated).
    var input: String { inputOption ?? files.first ?? "" }
    var output: String { outputOption ?? files.last ?? "" }

    @Option(help: ArgumentHelp("Target bit rate in bits per second, or with k/M (128k) (default: as ffmpeg, by the channels: 69k mono, 128k stereo, 341k 5.1; at most what AAC-LC carries).", valueName: "rate"))
    var bitrate: BitRateArgument?

    @OptionGroup var part: InputPartArguments
    @OptionGroup var audioFormat: AudioFormatArguments<Encode>

    // Parsed here rather than by the argument parser, whose refusal would list the ten names on
    // ten lines; one error line names them all.
    @Option(help: "Container, when the output's extension does not say it (adts, m4a, mp4, mov, mkv, webm, ts, hls, h264, hevc).",
            transform: { name in
                guard let format = FormatArgument<EncodeContainers>(argument: name) else {
                    throw ValidationError("takes \(FormatArgument<EncodeContainers>.allValueStrings.joined(separator: ", "))")
                }
                return format
            })
    var format: FormatArgument<EncodeContainers>?

    @Option(name: .customLong("metadata"), parsing: .singleValue,
            help: ArgumentHelp("Set a tag of the M4A/MP4: key=value (title, artist, album, album_artist, track, disc, date, genre, comment…); repeatable, an empty value removes it.", valueName: "key=value"))
    var metadata: [String] = []

    @Flag(help: "Do not carry the input's tags and cover art into the output.")
    var noMetadata = false

    @Flag(inversion: .prefixedNo,
          help: "Turn a rotated (phone) video's pictures upright and drop its rotation, in every container (ffmpeg's default); --no-autorotate keeps them as stored, the rotation lost (with a notice) where the container has no place for it. Default: kept as stored with the rotation in MP4/MOV/fMP4 HLS, turned upright elsewhere. A copied video is never turned.")
    var autorotate: Bool?

    @OptionGroup var encoding: AACEncodingArguments
    @OptionGroup var video: VideoEncodingArguments

    @Option(help: "Sample frames per captured chunk.")
    var chunkFrames: Int = 1024

    @Flag(help: "Read the input no faster than real time, like a live microphone.")
    var realtime = false

    @OptionGroup var hls: HLSArguments
    @OptionGroup var network: NetworkOutputArguments
    @OptionGroup var inputOptions: InputOptions
    @OptionGroup var outputOptions: OutputOptions
    @OptionGroup var logging: LoggingOptions

    var container: Container? {
        if let format { return format.container }
        if output == OutputPaths.standardOutput { return .adts }  // the one AAC container that streams
        return EncodeContainers.container(of: output)
    }

    func validate() throws {
        let missing = (inputOption == nil ? 1 : 0) + (outputOption == nil ? 1 : 0)
        guard files.count == missing else {
            throw ValidationError(files.count < missing
                ? "name the input and the output: --in FILE --out FILE, or avpipe encode IN OUT"
                : "unexpected argument '\(files[missing])': the input and output are already named")
        }
        guard container != nil else {
            let ext = OutputPaths.fileExtension(output)
            throw ValidationError("cannot tell the container from \(ext.isEmpty ? "'\(output)' (no extension)" : "extension '.\(ext)'"): use .mp4, .mov, .mkv, .webm, .ts, .m3u8 (HLS), .h264, .h265, .aac or .m4a, or --format")
        }
        try audioFormat.check()
        try part.check()
        try video.check()
        try encoding.check(bitrate: bitrate, realtime: realtime)
        guard chunkFrames > 0 else { throw ValidationError("--chunk-frames must be positive (got \(chunkFrames))") }
        for tag in metadata where !tag.contains("=") || tag.hasPrefix("=") {
            throw ValidationError("--metadata takes key=value (got '\(tag)')")
        }
        try network.check(output: output, realtime: realtime)
        try OutputPaths.ensureDistinct(input: input, output: output)
    }

    /// The `--metadata` settings: key → value (an empty value removes the tag).
    var tagSettings: [String: String] {
        Dictionary(metadata.map { tag in
            let equals = tag.firstIndex(of: "=")!
            return (String(tag[..<equals]), String(tag[tag.index(after: equals)...]))
        }, uniquingKeysWith: { $1 })
    }

    func run() async throws {
        let (input, output, container, overwrite) = (input, output, container!, outputOptions.overwrite)
        let encoding = AudioEncoderOptions(bitRate: bitrate?.bitsPerSecond, sampleRate: audioFormat.rate, quality: self.encoding.quality,
                                         parallel: self.encoding.parallel(realtime: realtime))
        let captureOptions = FileCapture.Options(chunkFrames: chunkFrames, realtime: realtime,
                                                 inputPolicy: inputOptions.policy, strict: inputOptions.strict)
        let sourceOptions = part.sourceOptions(demuxer: inputOptions.demuxerOptions)
        let (selectsPart, capturing, channels) = (part.selectsPart, realtime || chunkFrames != 1024, audioFormat.channels)
        let (settings, keepsInputTags, hlsOptions) = (tagSettings, !noMetadata, hls.options)
        let movie = try movieJob(container: container, encoding: encoding)
        let (networkOptions, pacesOutput) = (network.options(for: output, timeout: inputOptions.timeout, certificates: inputOptions.certificates.check), network.realtime(for: output, asked: false))
        let demuxerOptions = inputOptions.demuxerOptions
        try await CommandRunner.run(logging: logging) {
            // A movie (or anything, from a pipe that cannot be read twice) into a container that
            // holds pictures takes the movie path; audio alone keeps the audio path's extras
            // (PCM capture, parallel AAC, gapless tags).
            if let movie {
                let demuxer = try Demuxer(InputOptions.location(input), options: demuxerOptions)
                if demuxer.info.videoTracks.contains(where: { !$0.isCoverArt }) || !Self.isRegularFile(input) || !container.holdsAudio {
                    try await movie.run(demuxer)
                    return
                }
            }
            var job = EncodeJob(output: output, container: container, overwrite: overwrite, encoding: encoding, channels: channels,
                                hls: hlsOptions, network: networkOptions, realtime: pacesOutput)
            func carry(_ tags: [String: String], _ cover: CoverArt?) {
                let kept = keepsInputTags ? DescriptiveTags.of(tags) : [:]
                job.tags = kept.merging(settings) { $1 }.filter { !$0.value.isEmpty }
                job.coverArt = keepsInputTags ? cover : nil
            }
            // Trying the PCM reader first would consume the start of a pipe that holds anything
            // else, so a pipe is read by the decoder path unless capture options ask for PCM.
            // A URL is never read as a PCM WAV capture: it is not a file, whatever its name ends with.
            let readOnce = !Self.isRegularFile(input)
            if !selectsPart, !readOnce || capturing, !InputOptions.location(input).isURL,
               let capture = try Self.capture(input, captureOptions) {
                carry(capture.metadata, nil)
                try await job.run(capture, duration: capture.duration, overlapped: !capturing)
                reportTruncations(capture.truncation.map { [$0] } ?? [], input: input)
                return
            }
            if capturing {
                throw AVPipelineError.invalidOption(name: "--realtime/--chunk-frames", value: input,
                                                    reason: "they apply to PCM WAV input only (read as a capture device would)")
            }
            let source = try AudioFileSource(InputOptions.location(input), options: sourceOptions)
            try ensureStart(sourceOptions.start, within: source.info)
            carry(source.info.metadata, source.coverArt)
            try await job.run(source, duration: source.duration, overlapped: true)
            reportTruncations(source.truncations, input: input)
            reportSkippedPackets(source.decoderStatistics, kind: "audio")
        }
    }

    /// The movie path's job when the output holds pictures and they are wanted; nil otherwise.
    private func movieJob(container: Container, encoding: AudioEncoderOptions) throws -> MovieEncodeJob? {
        guard container.holdsVideo, !video.noVideo else { return nil }
        var encoding = encoding
        if encoding.parallel.jobs == 0 { encoding.parallel.jobs = 1 }  // segments need an audio-only input
        let audio: TranscodePlan.AudioWork = video.noAudio ? .none
            : container == .webm ? .encoder("libopus", bitRate: bitrate?.bitsPerSecond) : .aac(encoding, channels: audioFormat.channels)
        return MovieEncodeJob(input: input, output: output, container: container, video: try video.work(into: container), audio: audio,
                              audioTrack: part.audioTrack, subtitles: !part.noSubtitles, start: part.start?.time, duration: part.duration?.time,
                              overwrite: outputOptions.overwrite, hls: hls.options, keepsMetadata: !noMetadata, tagSettings: tagSettings,
                              orientation: autorotate.map { $0 ? .upright : .asStored } ?? .automatic,
                              realtime: network.realtime(for: output, asked: realtime), network: network.options(for: output, timeout: inputOptions.timeout, certificates: inputOptions.certificates.check))
    }

    /// Whether `input` is a regular file (which can be opened twice), not a pipe, FIFO or device.
    static func isRegularFile(_ input: String) -> Bool {
        var info = stat()
        let path = ["-", "pipe:", "pipe:0"].contains(input) ? "/dev/stdin" : input
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// The capture stage for a PCM file; nil for any other audio (which the decoder path reads).
    static func capture(_ input: String, _ options: FileCapture.Options) throws -> FileCapture? {
        do {
            return try FileCapture(path: input, options: options)
        } catch AVPipelineError.unsupportedCodec {
            return nil
        }
    }
}

/// `encode`'s `--rate` and `--channels` describe the AAC made from the input.
extension Encode: AudioFormatHelp {
    static var audioFormatHelp: AudioFormatText {
        AudioFormatText(rate: "Sample rate of the AAC in Hz (default: the input's, or the nearest AAC supports).",
                        channels: "Channel count of the AAC (default: the input's; 2 downmixes 5.1 to stereo).", rates: 1...768_000)
    }
}

/// Where encoded audio goes: AAC-LC at the asked rate and channels, into ADTS or MP4/M4A.
struct EncodeJob: Sendable {
    let output: String
    let container: Container
    let overwrite: Bool
    let encoding: AudioEncoderOptions
    let channels: Int?
    /// How an HLS output is cut and published.
    let hls: HLSOptions
    /// How a network output is connected, reconnected and copied.
    var network = NetworkOptions()
    /// Written no faster than real time (a stream to the network).
    var realtime = false
    /// Tags and cover picture for an M4A/MP4 (ADTS has no place for them).
    var tags: [String: String] = [:]
    var coverArt: CoverArt?

    /// `overlapped`: read, decode and convert to the encoder's planar float on the other core,
    /// a bounded number of buffers ahead, while FFmpeg's single-threaded AAC encoder (nearly all the
    /// work) runs here. Off for a paced capture, which imitates a device.
    func run<PCM: SampleSource>(_ pcm: PCM, duration: MediaTime?, overlapped: Bool) async throws where PCM.Buffer == PCMBuffer {
        // libswresample's default matrix downmixes (5.1 → stereo) or spreads the channels.
        let request = AudioFormatRequest(sampleFormat: overlapped ? .fltp : nil, sampleRate: overlapped ? encoding.sampleRate : nil,
                                         channelLayout: channels.map { .default(channelCount: $0) })
        if overlapped {
            try await encode(pcm.resampled(to: request).prefetched(), duration: duration)
        } else if channels != nil {
            try await encode(pcm.resampled(to: request), duration: duration)
        } else {
            try await encode(pcm, duration: duration)
        }
    }

    private func encode<PCM: SampleSource>(_ pcm: PCM, duration: MediaTime?) async throws where PCM.Buffer == PCMBuffer {
        var parallel = encoding.parallel
        if parallel.jobs == 0 { parallel.jobs = Self.automaticJobs(duration: duration) }
        let encoder = try pcm.encodeAAC(.init(bitRate: encoding.bitRate, sampleRate: encoding.sampleRate, quality: encoding.quality,
                                              parallel: parallel))
        Self.reportLowered(requested: encoding.bitRate, encoder: encoder)
        let progress = ProgressLine(total: duration)
        if !container.isGapless { noticeNoTags(container == .adts ? "ADTS" : container == .ts ? "MPEG-TS" : "HLS") }
        var destination = EncodedAudioOutput(path: output, container: container, overwrite: overwrite, hls: hls, metadata: tags,
                                             coverArt: coverArt)
        destination.network = network
        destination.realtime = realtime
        let written = try await destination.write(encoder, progress: SegmentAllocation.progress(for: container, progress.update))
        progress.finish(at: written.duration)
        if let requested = encoding.bitRate { Self.reportOvershoot(requested: requested, bytes: written.bytes, duration: written.duration) }
    }

    /// No --jobs: one job per 30 s of input, up to the core count. Each encoder after the first
    /// costs a warm-up (256 frames, ~6 s of audio, in bit-rate mode), so a shorter input, or one
    /// of unknown length, is encoded sequentially, as ffmpeg does.
    static func automaticJobs(duration: MediaTime?) -> Int {
        let cores = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        guard cores > 1, let seconds = duration?.seconds, seconds >= 60 else { return 1 }
        return Swift.min(cores, Int(seconds / 30))
    }

    private func noticeNoTags(_ container: String) {
        if !tags.isEmpty || coverArt != nil {
            printNotice("\(output): \(container) has no place for tags or cover art; they are left out (an .m4a keeps them)")
        }
    }

    /// A bit rate above what AAC-LC carries for the stream was lowered by the encoder: say to what.
    static func reportLowered<PCM>(requested: Int?, encoder: AACEncoder<PCM>) {
        guard let requested, encoder.bitRate < requested else { return }
        let format = encoder.encoderInputFormat
        printWarning("\(requested / 1000) kb/s is more than AAC-LC carries for \(format.channelCount) channel(s) at \(format.sampleRate) Hz; using \(encoder.bitRate / 1000) kb/s")
    }

    /// FFmpeg's encoder has a floor (FFmpeg 5.1: about 20–22 kb/s for 44.1 kHz stereo, 13 for mono,
    /// whatever less is asked): say what was written when it is above the request. Its rate control
    /// otherwise lands within about 1 % of the request, so 3 % (and at least 1 kb/s, the unit the
    /// warning shows) separates the floor from ordinary variation.
    static func reportOvershoot(requested: Int, bytes: Int, duration: MediaTime?) {
        guard let seconds = duration?.seconds, seconds >= 1 else { return }
        let written = Int((Double(bytes) * 8 / seconds).rounded())
        guard written - requested >= max(1000, requested * 3 / 100) else { return }
        printWarning("asked for \(requested / 1000) kb/s, FFmpeg's AAC encoder wrote \(written / 1000) kb/s (its lowest rate for this stream)")
    }
}
