import ArgumentParser
import AVPipeline
import AVPipelineDevices

/// `avpipe play`: shows the picture in a window and plays the sound, in sync (a thin layer over
/// `Player`).
struct Play: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Play a media file: the picture in a window, the sound on an audio device, in sync.",
        discussion: """
        Examples: avpipe play movie.mp4
                  avpipe play movie.mp4 --start 1:30 --fullscreen --stats
                  avpipe play song.m4a --volume 0.5
        Keys in the window: space or p pause/resume · ←/→ seek −/+10 s · ↓/↑ seek −/+60 s · \
        9/0 volume down/up · m mute · f full screen · q or Esc quit.
        Without a display the sound plays alone; without an audio device the picture plays on the \
        wall clock; with neither, play says which device is missing and what to do. Ctrl-C stops playback. To get the audio as a file instead: avpipe decode input.mp4 --out out.wav
        """
    )

    @Argument(help: ArgumentHelp("Media file to play (MP4, M4A, ADTS .aac, MKV, MPEG-TS, …).", valueName: "input"))
    var input: String?

    @Option(help: ArgumentHelp("Output device name (see --list-devices); default: the system's.", valueName: "name"))
    var device: String?

    @Option(help: "Volume from 0 (silent) to 1 (unchanged).")
    var volume: Float = 1

    @Option(help: ArgumentHelp("Begin at this time (seconds or hh:mm:ss.xxx).", valueName: "time"))
    var start: TimeArgument?

    @Flag(help: "Open the window full screen.")
    var fullscreen = false

    @Flag(help: "Play the sound only (no window).")
    var noVideo = false

    @Flag(help: "Show the picture only (on the wall clock).")
    var noAudio = false

    @Option(help: ArgumentHelp("Audio track to play (0 = first); default: the file's main one.", valueName: "n"))
    var audioTrack: Int?

    @Option(help: ArgumentHelp("Video track to show (0 = first); default: the file's main one.", valueName: "n"))
    var videoTrack: Int?

    @Flag(help: "At the end, print pictures shown, dropped and late, and the measured A/V offset.")
    var stats = false

    @Flag(help: "List the output devices and exit.")
    var listDevices = false

    @OptionGroup var inputOptions: InputOptions
    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        guard listDevices || input != nil else { throw ValidationError("missing the input file to play") }
        guard (0...1).contains(volume) else { throw ValidationError("--volume must be between 0 and 1 (got \(volume))") }
        guard !(noVideo && noAudio) else { throw ValidationError("--no-video and --no-audio leave nothing to play") }
        for (name, value) in [("--audio-track", audioTrack), ("--video-track", videoTrack)] {
            if let value, value < 0 { throw ValidationError("\(name) counts from 0 (got \(value))") }
        }
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
        let input = input!
        let options = PlayerOptions(playsAudio: !noAudio, playsVideo: !noVideo, audioTrack: audioTrack, videoTrack: videoTrack,
                                    audioDevice: device, volume: volume, fullscreen: fullscreen, start: start?.time,
                                    demuxer: inputOptions.demuxerOptions)
        let (stats, noAudio) = (stats, noAudio)
        try await CommandRunner.run(logging: logging) {
            let player: Player
            do {
                player = try Player(InputOptions.location(input), options: options)
            } catch AVPipelineError.deviceUnavailable(.audioOutput, let reason) {
                throw AVPipelineError.deviceUnavailable(
                    .audioOutput, reason: "\(reason); to get the audio anyway, decode it to a file: avpipe decode \(input) --out file.wav")
            } catch AVPipelineError.deviceUnavailable(.display, let reason) where noAudio {
                throw AVPipelineError.deviceUnavailable(.display, reason: "\(reason); or play the sound only (without --no-audio)")
            }
            try TranscodeMessages.ensureStart(options.start, within: player.info)
            for notice in player.notices { printNotice(notice) }
            let progress = ProgressLine(total: player.info.duration)
            let statistics: PlaybackStatistics
            do {
                // The speed counts what was played: a seek is a jump, not playback.
                statistics = try await player.run { progress.update($0, played: player.played) }
                progress.finish(at: player.position, played: player.played)
            } catch {
                progress.finish(at: nil)
                throw error
            }
            printMessage(TranscodeMessages.truncations(player.truncations, input: input))
            if let decoding = statistics.audioDecoding { printMessage(TranscodeMessages.skippedPackets(decoding, kind: "audio")) }
            if let decoding = statistics.videoDecoding { printMessage(TranscodeMessages.skippedPackets(decoding, kind: "video")) }
            if stats { printLine(Self.describe(statistics, video: player.showsVideo, audio: player.playsAudio)) }
        }
    }

    /// The `--stats` line.
    static func describe(_ statistics: PlaybackStatistics, video: Bool, audio: Bool) -> String {
        var parts: [String] = []
        if video {
            parts.append("pictures shown \(statistics.picturesShown), dropped \(statistics.picturesDropped), late \(statistics.picturesLate)")
            if let mean = statistics.meanOffset, let maximum = statistics.maximumOffset {
                let clock = audio ? "A/V offset" : "offset from the wall clock"
                parts.append("\(clock) mean \(milliseconds(mean)) ms, max \(milliseconds(maximum)) ms")
            }
        }
        if audio { parts.append("audio underruns \(statistics.audioUnderruns)") }
        return parts.joined(separator: "; ")
    }

    private static func milliseconds(_ seconds: Double) -> String { String(oneDecimal: seconds * 1000) }
}
