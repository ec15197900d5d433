import ArgumentParser
import AVPipeline

/// `avpipe encode`: a movie's pictures to H.264 (or HEVC, VP9, AV1) and its sound to AAC, in any
/// container that holds them; any audio → AAC-LC in ADTS (.aac) or MP4/M4A. The command parses
/// its options into a `TranscodeSession`'s, runs it and prints its events.
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

    var container: Container? { format?.container ?? TranscodeSession.container(of: output) }

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
        let session = try TranscodeSession(input: input, output: output, options: sessionOptions)
        try await TranscodeEventPrinter.run(logging: logging, raisesSegmentBuffers: session.container == .hls) { events in
            try await session.run(events: events)
        }
    }

    /// The session's options, from the command's: what `encode` decides is the session's.
    var sessionOptions: TranscodeSession.Options {
        var options = TranscodeSession.Options()
        options.container = container
        options.video = video.choice
        options.audio.isEnabled = !video.noAudio
        options.audio.bitRate = bitrate?.bitsPerSecond
        options.audio.sampleRate = audioFormat.rate
        options.audio.channels = audioFormat.channels
        options.audio.track = part.audioTrack
        options.audio.quality = encoding.quality
        options.audio.parallel = encoding.parallel(realtime: realtime)
        options.subtitles = !part.noSubtitles
        options.start = part.start?.time
        options.duration = part.duration?.time
        options.overwrite = outputOptions.overwrite
        options.hls = hls.options
        options.keepsMetadata = !noMetadata
        options.tags = tagSettings
        options.orientation = autorotate.map { $0 ? .upright : .asStored } ?? .automatic
        options.realtime = network.noRealtime ? false : realtime ? true : nil
        options.network = network.options(for: output, timeout: inputOptions.timeout, certificates: inputOptions.certificates.check)
        options.demuxer = inputOptions.demuxerOptions
        if realtime || chunkFrames != 1024 { options.capture = .init(chunkFrames: chunkFrames, realtime: realtime) }
        // Progress costs a call per packet: made for the status line, and for HLS, whose first
        // packet raises the allocator's thresholds (`SegmentAllocation`).
        options.reportsProgress = isTerminal(STDERR_FILENO) || container == .hls
        return options
    }
}

/// `encode`'s `--rate` and `--channels` describe the AAC made from the input.
extension Encode: AudioFormatHelp {
    static var audioFormatHelp: AudioFormatText {
        AudioFormatText(rate: "Sample rate of the AAC in Hz (default: the input's, or the nearest AAC supports).",
                        channels: "Channel count of the AAC (default: the input's; 2 downmixes 5.1 to stereo).", rates: 1...768_000)
    }
}

