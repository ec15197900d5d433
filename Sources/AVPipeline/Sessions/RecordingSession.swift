import Synchronization

/// A live recording: the microphone, the screen or a camera, or a screen or camera with the
/// microphone, stamped on one `CaptureClock` and encoded as they arrive — what `avpipe record` does.
///
/// Sound alone goes to AAC (`.aac`, `.m4a`, `.mp4`, `.mkv`, `.ts`, `.m3u8`, `rtmp://`) or PCM in a
/// `.wav`; pictures are encoded to H.264 (live x264 settings unless `Options.videoEncoding` says
/// otherwise) beside AAC sound, into `.mp4`, `.mov`, `.mkv`, `.ts`, `.m3u8` or an `rtmp://` stream.
/// An MP4/MOV/M4A is written in fragments under its final name, each starting on a keyframe, so a
/// killed process keeps all but its last fragment. Pictures the encoder cannot keep up with are
/// dropped from a bounded queue and counted, never queued without bound.
///
/// ```swift
/// let session = try RecordingSession(output: "screen.mp4", options: .init(
///     microphone: nil, pictures: .init(device: .screen(display: ":0")), duration: .seconds(10)))
/// let summary = try await session.run { event in print(event) }
/// ```
///
/// `stop()` — from any task or thread, a signal handler's included — ends both devices; the
/// encoders drain, the file is completed and `run` returns normally: a stop is not an error.
public final class RecordingSession: Sendable {
    /// The output: a file, an HLS playlist or a stream's URL.
    public let output: String
    /// What is recorded and how it is written.
    public let options: Options
    /// The container written, from `options.container` or the output's name.
    public let container: Container

    /// Whether a stop was asked, and how to stop the devices once they are open.
    private struct State {
        var started = false
        var stopRequested = false
        var stopDevices: [@Sendable () -> Void] = []
    }
    private let state = Mutex(State())

    /// A recording to `output`; nothing is opened until `run`. Throws when there is nothing to
    /// record or the container cannot hold what is recorded.
    public init(output: String, options: Options) throws {
        guard let container = options.container ?? Container(path: output) else {
            let name = Container.fileExtension(of: output)
            throw AVPipelineError.unsupportedFormat("cannot tell the container from \(name.isEmpty ? "'\(output)' (no extension)" : "extension '.\(name)'")")
        }
        if options.pictures != nil {
            guard Self.pictureContainers.contains(container) else {
                throw AVPipelineError.unsupportedFormat("pictures go into .mp4, .mov, .mkv, .ts, .m3u8 or an rtmp:// stream (not .\(container.rawValue))")
            }
        } else {
            guard options.microphone != nil else {
                throw AVPipelineError.invalidOption(name: "options", value: "no microphone and no pictures", reason: "there is nothing to record")
            }
            guard container == .wav || container == .adts || container.isMultiTrack else {
                throw AVPipelineError.unsupportedFormat("sound is recorded to .aac, .wav or one of \(Container.extensionsText), not .\(container.rawValue)")
            }
        }
        guard options.fragmentDuration.seconds > 0 else {
            throw AVPipelineError.invalidOption(name: "fragmentDuration", value: "\(options.fragmentDuration)", reason: "it must be positive")
        }
        self.output = output
        self.options = options
        self.container = container
    }

    /// The containers a recording with pictures is written to.
    static let pictureContainers: Set<Container> = [.mp4, .mov, .mkv, .ts, .hls, .flv]

    /// Records until `stop()`, the `duration` or a device's end, then completes the output and
    /// returns what was captured. `events` receives the status, notices and warnings as they
    /// happen. Cancelling the task that runs it abandons the recording instead (a fragmented or
    /// live output still keeps what was written) and throws `.cancelled`. A session runs once.
    public func run(events: (@Sendable (RecordingEvent) -> Void)? = nil) async throws -> RecordingSummary {
        let first = state.withLock { state in
            defer { state.started = true }
            return !state.started
        }
        guard first else {
            throw AVPipelineError.invalidOption(name: "run", value: "a second time", reason: "a RecordingSession records once")
        }
        // Stopped before anything was opened: nothing to record, nothing written.
        if state.withLock({ $0.stopRequested }) { return RecordingSummary(output: output) }
        if options.pictures != nil {
            return try await recordMovie(events: events)
        }
        return try await recordSound(events: events)
    }

    /// Stops both devices: what they captured is encoded, the output completed, and `run` returns
    /// normally. Safe from any thread, at any time, more than once.
    public func stop() {
        let stops = state.withLock { state in
            state.stopRequested = true
            return state.stopDevices
        }
        for stop in stops { stop() }
    }

    /// Makes `stop` reach a device just opened (at once, if a stop was asked while it opened).
    func onStop(_ stop: @escaping @Sendable () -> Void) {
        let stopped = state.withLock { state in
            state.stopDevices.append(stop)
            return state.stopRequested
        }
        if stopped { stop() }
    }

    /// The microphone's options as the session uses them: on `clock`, for the session's duration.
    func microphoneOptions(clock: CaptureClock?) -> DeviceCapture.Options? {
        options.microphone.map { microphone in
            var microphone = microphone
            microphone.clock = clock
            if let duration = options.duration { microphone.duration = duration }
            return microphone
        }
    }

    /// Sends the status while `body` records (when someone listens), and once more at its end.
    func reportingStatus<T>(_ sampler: RecordingStatusSampler, to events: (@Sendable (RecordingEvent) -> Void)?,
                            _ body: () async throws -> T) async throws -> T {
        guard let events else { return try await body() }
        let sending = Task { await sampler.keepSending(to: events) }
        defer { sending.cancel() }
        let result = try await body()
        sending.cancel()
        await sending.value
        events(.status(sampler.read()))
        return result
    }
}
