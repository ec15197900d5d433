import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What `avpipe encode` does, as a type: a movie's pictures encoded to H.264 (HEVC, VP9, AV1) and
/// its sound to AAC (VP9 and Opus for WebM), into any container that holds them, or any audio to
/// AAC in ADTS or M4A; with every decision the command makes included — codecs from the output's
/// extension, the part's timeline origin, chapters, cover art, tags and track languages, rotation,
/// subtitles and attachments, keyframes at HLS segment starts, parallel AAC for long audio, and
/// real-time pacing for a live URL.
///
/// ```swift
/// let session = try TranscodeSession(input: "movie.mkv", output: "movie.mp4")
/// let summary = try await session.run { event in
///     if case .progress(let progress) = event { print(progress.fraction ?? 0) }
/// }
/// ```
///
/// A session runs once. `stop()`, from any thread, ends the run early as a normal return with a
/// complete file; cancelling the running task instead abandons it (`.cancelled`, nothing written).
public final class TranscodeSession: Sendable {
    /// The input, as given: a path (`-` for standard input) or a URL.
    public let input: String
    /// The output: a path, an HLS playlist (`.m3u8`), or a network URL.
    public let output: String
    /// What the session makes.
    public let options: Options
    /// The output's container: `options.container`, else from the output's extension.
    public let container: Container
    let location: InputLocation
    let stopSwitch = StopSwitch()
    private let started = Atomic<Bool>(false)

    /// A transcode of `input` (a path, or a URL as `Demuxer` takes: `http(s)://`, `rtmp://`,
    /// `srt://`) into `output`. Throws `.invalidOption` when the container cannot be told from the
    /// output's name and `options.container` does not say it.
    public init(input: String, output: String, options: Options = .init()) throws {
        guard let container = options.container ?? Self.container(of: output) else {
            let ext = Container.fileExtension(of: output)
            throw AVPipelineError.invalidOption(name: "output", value: output,
                                                reason: "cannot tell the container from \(ext.isEmpty ? "a name without an extension" : "extension '.\(ext)'")")
        }
        self.input = input
        self.output = output
        self.options = options
        self.container = container
        location = InputLocation(argument: input)
    }

    /// Ends the run early: every stream ends at its next buffer, the encoders drain and the output
    /// is completed and put in place; `run` then returns normally. Callable from any thread.
    public func stop() { stopSwitch.stop() }

    /// Transcodes, sending `events` (progress, notices, warnings) from the running task, and
    /// returns what was written once the output is complete and in place. Throws `AVPipelineError`
    /// (`.cancelled` when the task is cancelled; the output is then not written).
    @discardableResult
    public func run(events: (@Sendable (TranscodeEvent) -> Void)? = nil) async throws -> TranscodeSummary {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else {
            throw AVPipelineError.invalidOption(name: "run", value: output, reason: "a transcode session runs once")
        }
        let send: @Sendable (TranscodeEvent) -> Void = events ?? { _ in }
        var network = options.network
        if network.events == nil, events != nil {
            let output = output
            network.events = { event in send(.notice("\(output): \(event)")) }
        }
        let context = Context(send: send, network: network, progress: events != nil && options.reportsProgress,
                              realtime: options.realtime ?? Self.isLiveStream(output))
        // A movie (or anything, from a pipe that cannot be read twice) into a container that holds
        // pictures takes the movie path; audio alone keeps the audio path's extras (PCM capture,
        // parallel AAC, gapless tags).
        if container.holdsVideo, options.video != .none {
            let demuxer = try Demuxer(location, options: options.demuxer)
            if demuxer.info.videoTracks.contains(where: { !$0.isCoverArt }) || !Self.isRegularFile(input) || !container.holdsAudio {
                return try await runMovie(demuxer, context)
            }
        }
        return try await runAudio(context)
    }

    /// What one run passes down its path.
    struct Context: Sendable {
        let send: @Sendable (TranscodeEvent) -> Void
        /// `options.network`, its events sent as notices when it has no handler of its own.
        let network: NetworkOptions
        /// Whether `.progress` events are made.
        let progress: Bool
        /// Whether the output is written no faster than real time.
        var realtime: Bool

        /// A meter whose updates go out as events, or nil when progress is not reported.
        func meter(total: MediaTime?, pictureRate: Double? = nil) -> TranscodeProgressMeter? {
            progress ? TranscodeProgressMeter(total: total, pictureRate: pictureRate, send: send) : nil
        }

        /// Sends `event` when there is one.
        func send(_ event: TranscodeEvent?) { if let event { send(event) } }
    }

    /// Whether `input` is a regular file (which can be opened twice), not a pipe, FIFO or device.
    static func isRegularFile(_ input: String) -> Bool {
        var info = stat()
        let path = ["-", "pipe:", "pipe:0"].contains(input) ? "/dev/stdin" : input
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }
}
