import ArgumentParser
import AVPipeline

/// `avpipe play`: plays the audio track of a media file on an output device (SDL2).
struct Play: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Play the audio track of a media file on an audio output device.",
        discussion: """
        Example: avpipe play input.mp4 --volume 0.5
        Video tracks are ignored. Ctrl-C stops playback. Without an audio device, decode to a file \
        instead: avpipe decode input.mp4 --out out.wav
        """
    )

    @Argument(help: ArgumentHelp("Media file to play (MP4, M4A, ADTS .aac, MKV, MPEG-TS, …).", valueName: "input"))
    var input: String?

    @Option(help: ArgumentHelp("Output device name (see --list-devices); default: the system's.", valueName: "name"))
    var device: String?

    @Option(help: "Volume from 0 (silent) to 1 (unchanged).")
    var volume: Float = 1

    @Flag(help: "List the output devices and exit.")
    var listDevices = false

    @OptionGroup var inputOptions: InputOptions
    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        guard listDevices || input != nil else { throw ValidationError("missing the input file to play") }
        guard (0...1).contains(volume) else { throw ValidationError("--volume must be between 0 and 1 (got \(volume))") }
    }

    func run() async throws {
        if listDevices {
            try await CommandRunner.run(logging: logging) {
                let names = try AudioOutputDevices.names()
                if names.isEmpty { printNotice("the audio driver lists no output devices") }
                for name in names { printLine(name) }
            }
            return
        }
        let (input, options, demuxerOptions) = (input!, AudioRendererOptions(device: device, volume: volume), inputOptions.demuxerOptions)
        try await CommandRunner.run(logging: logging) {
            let demuxer = try Demuxer(path: input, options: demuxerOptions)
            let decoder = try demuxer.audioTrack().decodeAudio()
            if demuxer.info.hasVideo { printNotice("the video track is ignored; playing the audio only") }
            let renderer: AudioRenderer<AudioDecoder<DemuxedAudioTrack, AnyAudioCodec>>
            do {
                renderer = try AudioRenderer(upstream: decoder, options: options)
            } catch AVPipelineError.deviceUnavailable(let reason) {
                throw AVPipelineError.deviceUnavailable(
                    reason: "\(reason); to get the audio anyway, decode it to a file: avpipe decode \(input) --out file.wav")
            }
            let progress = ProgressLine(total: demuxer.info.duration)
            do {
                try await renderer.run(progress: progress.update)
                progress.finish(at: renderer.control.position)
            } catch {
                progress.finish(at: nil)
                throw error
            }
            reportTruncations(demuxer.truncations, input: input)
            reportSkippedPackets(decoder.statistics)
        }
    }
}
