/// Plays a media file as ffplay does: the picture in a window, the sound on an audio device, in
/// sync on the audio clock; pause, seek, volume and stop from any task (or from the window's keys).
/// The window and the device come from a `PlaybackDevices` (AVPipelineDevices' `SDLDevices`, which
/// `Player(path:)` there uses).
///
/// ```swift
/// import AVPipelineDevices
/// let player = try Player(path: "movie.mp4")
/// try await player.run()          // returns at the end, or when stopped (q, Esc, closing the window)
/// ```
///
/// or, driven from elsewhere (a UI, another task): `player.play()` starts it in a task of its own
/// and returns; `pause()`, `play()`, `seek(to:)`, `position` and `stop()` steer it, and
/// `waitUntilFinished()` awaits the end.
///
/// It wires demux → decode → render in lanes that each pull at their own pace: the audio lane keeps
/// 0.2 s queued for the device; the video lane decodes at most `VideoLane.queueCapacity` pictures
/// ahead and shows each when the audio clock reaches it (dropping those late by more than a frame).
/// Memory stays bounded however the file is interleaved: a seekable file gives each track its own
/// reading context, so one track never has to buffer the other's packets to reach its own; a pipe
/// (read once, by one context) parks the other track's packets in a queue capped at
/// `SharedInput.maxParkedBytes`, beyond which playback fails with a typed error.
///
/// Without a display (or with `playsVideo` off) it plays the sound only; without an audio device
/// (or `playsAudio` off) it shows the picture on the wall clock. `notices` says what was left out.
public final class Player: Sendable {
    /// What the file holds (container, duration, tags, tracks), as its header said.
    public let info: MediaInfo
    /// What this playback leaves out and why (no display, no audio device…), one line each.
    public let notices: [String]
    /// Whether a window shows the picture.
    public var showsVideo: Bool { session.hasVideo }
    /// Whether a device plays the sound.
    public var playsAudio: Bool { session.hasAudio }

    private let demuxer: Demuxer
    private let session: PlaybackSession
    private let lanes: LockedState<OwnershipTransfer<Lanes>?>
    private let control: PlaybackControl?
    private let volumeState: LockedState<(volume: Float, muted: Bool)>
    private let start: Double
    private let end: Double?
    /// Media time played before the latest jump, and where playback resumed after it (see `played`).
    private let span: LockedState<(before: Double, from: Double)>
    /// The task `play()` started `run()` in, if it did.
    private let background = LockedState<Task<PlaybackStatistics, any Error>?>(nil)

    private struct Lanes {
        var audio: AudioLane?
        var video: VideoLane<VideoDecoder<DemuxedVideoTrack, AnyVideoCodec>>?
        var window: (any PictureWindow)?
    }

    /// Opens the file, its decoders, and a window and an audio device of `devices`. Throws when
    /// the file cannot be played at all: no track to play, or `deviceUnavailable` naming the device
    /// that is missing for the tracks asked for (the display for a picture alone, the audio output
    /// otherwise). (AVPipelineDevices adds `init(path:options:)` on SDL2's devices.)
    public convenience init(path: String, options: PlayerOptions = .init(), devices: some PlaybackDevices) throws {
        try self.init(.path(path), options: options, devices: devices)
    }

    /// Plays a file or a network address (`Demuxer(_:options:)`) on `devices`; a live one from
    /// where it is when opened (its live edge), without seeking.
    public init(_ location: InputLocation, options: PlayerOptions = .init(), devices: some PlaybackDevices) throws {
        let path = location.name
        guard (0...1).contains(options.volume) else {
            throw AVPipelineError.invalidOption(name: "volume", value: "\(options.volume)", reason: "must be between 0 and 1")
        }
        var demuxerOptions = options.demuxer
        demuxerOptions.readsInBackground = false  // seeking needs on-demand reading
        let demuxer = try Demuxer(location, options: demuxerOptions)
        self.demuxer = demuxer
        info = demuxer.info
        var notices: [String] = []
        var lanes = Lanes()
        var missingDisplay: Unavailable?

        if options.playsVideo, info.hasVideo {
            let decoder = try demuxer.videoTrack(options.videoTrack).decodeVideo()
            let lane = try VideoLane(pictures: decoder, shows: devices.showsWithoutConversion, seekGeneration: { decoder.seekGeneration },
                                     finished: { $0.recordVideo(decoder.statistics) })
            let title = options.windowTitle ?? String(path.split(separator: "/").last ?? Substring(path))
            switch try Self.unavailable({ try devices.openWindow(title: title, format: lane.format, fullscreen: options.fullscreen) }) {
            case .success(let window): (lanes.window, lanes.video) = (window, lane)
            case .failure(let missing):
                missingDisplay = missing
                notices.append("\(missing): playing the sound only")
            }
        }
        if options.playsAudio, info.hasAudio {
            let decoder = try demuxer.audioTrack(options.audioTrack).decodeAudio()
            switch try Self.unavailable({ try devices.openAudioOutput(named: options.audioDevice, preferred: decoder.outputFormat) }) {
            case .success(let output): lanes.audio = AudioLane(decoder: decoder, output: output, volume: options.volume)
            case .failure(let missing) where lanes.video != nil:
                notices.append("\(missing): showing the picture on the wall clock, without sound")
            case .failure(let missing):
                // Neither device: both are named, the one for the sound first (it alone would do).
                guard let missingDisplay else { throw missing.error }
                throw AVPipelineError.deviceUnavailable(.audioOutput, reason: "\(missing.reason); and \(missingDisplay)")
            }
        }
        guard lanes.audio != nil || lanes.video != nil else {
            // The picture was asked for and nothing else plays: the display is what is missing.
            if let missingDisplay { throw missingDisplay.error }
            throw AVPipelineError.invalidOption(name: "tracks", value: path,
                                                reason: info.hasAudio || info.hasVideo ? "every track was turned off"
                                                    : "the file has no audio or video track to play")
        }
        self.notices = notices
        let start = demuxer.info.startTime?.seconds ?? 0
        self.start = start
        span = LockedState((0, start))
        end = demuxer.info.duration.map { start + $0.seconds }
        control = lanes.audio?.control
        volumeState = LockedState((options.volume, false))
        session = PlaybackSession(clock: PlaybackClock(start: start, audio: lanes.audio?.clockSide),
                                hasAudio: lanes.audio != nil, hasVideo: lanes.video != nil)
        self.lanes = LockedState(OwnershipTransfer(lanes))
        if let offset = options.start, offset.seconds > 0 { try seek(to: offset) }
    }

    /// Plays until the end, `stop()`, or the window's q/Esc/close; then closes the window and the
    /// device. Throws `.cancelled` when the task is cancelled, or what failed in a lane.
    @discardableResult
    public func run(progress: ((MediaTime) -> Void)? = nil) async throws -> PlaybackStatistics {
        let taken = self.lanes.withLock { (box: inout OwnershipTransfer<Lanes>?) -> OwnershipTransfer<Lanes>? in
            defer { box = nil }
            return box
        }
        guard let lanes = taken?.value else {
            throw AVPipelineError.invalidOption(name: "run", value: "again", reason: "a player plays once")
        }
        let session = session
        defer { lanes.window?.close() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            if let audio = lanes.audio {
                let transfer = OwnershipTransfer(audio)
                group.addTask { await PlaybackSession.guarded(session) { try await transfer.value.run(session) } }
            }
            if let video = lanes.video, let window = lanes.window {
                VideoLane.start(video, in: &group, window: window, session: session)
                group.addTask { [self] in
                    for await input in window.inputs { self.handle(input) }
                }
            }
            defer { group.cancelAll() }
            try await session.waitUntilFinished { progress?(position) }
        }
        progress?(position)
        var statistics = session.snapshot.statistics
        statistics.audioUnderruns = control?.statistics.underruns ?? 0
        return statistics
    }

    /// Starts playing in a task of its own and returns at once (if neither `play()` nor `run()` has
    /// started it yet); resumes after `pause()`. `waitUntilFinished()` awaits the end.
    public func play() {
        if isPaused { resume() }
        background.withLock { task in
            guard task == nil, lanes.withLock({ $0 != nil }) else { return }
            task = Task { try await self.run() }
        }
    }

    /// Waits for a playback started by `play()` to end (finished, `stop()`, q); its statistics, or
    /// what failed. Cancelling the waiting task stops the playback.
    @discardableResult
    public func waitUntilFinished() async throws -> PlaybackStatistics {
        guard let task = background.withLock({ $0 }) else {
            throw AVPipelineError.invalidOption(name: "waitUntilFinished", value: "before play()", reason: "play() has not started the player")
        }
        return try await withTaskCancellationHandler { try await task.value } onCancel: { stop() }
    }

    /// Where playback is, from the file's start.
    public var position: MediaTime {
        let seconds = max(0, session.clock.now() - start)
        return MediaTime(seconds: seconds)
    }

    /// How much media time has played, jumps left out: what a speed is measured by (a seek, or
    /// `PlayerOptions.start`, moves `position` without playing anything).
    public var played: MediaTime {
        let seconds = span.withLock { $0.before + max(0, session.clock.now() - $0.from) }
        return MediaTime(seconds: seconds)
    }

    /// Whether playback is held (by `pause()`, or space or p in the window).
    public var isPaused: Bool { session.snapshot.paused }

    /// Holds the picture and the sound where they are; the pipeline stops pulling once its buffers are full.
    public func pause() {
        session.setPaused(true)
        control?.pause()
        session.clock.pause()
    }

    /// Continues from where `pause()` held playback.
    public func resume() {
        session.setPaused(false)
        session.clock.resume()
        control?.resume()
    }

    /// Pauses if playing, resumes if paused (space or p in the window).
    public func togglePause() { isPaused ? resume() : pause() }

    /// Jumps to `time` (from the file's start, clamped to the file), exactly: the next picture and
    /// sample are those at `time`. Throws for an input that cannot seek (a pipe).
    public func seek(to time: MediaTime) throws {
        var target = start + max(0, time.seconds)
        if let end { target = min(target, end) }
        try demuxer.seek(to: MediaTime(seconds: target), mode: .exact)
        let reached = session.clock.now()
        span.withLock { span in (span.before, span.from) = (span.before + max(0, reached - span.from), target) }
        let generation = session.beginSeek()
        session.clock.seek(to: target, generation: generation)
    }

    /// Jumps by `offset` from the current position (negative: back), as `seek(to:)` does.
    public func seek(by offset: MediaTime) throws {
        let target = max(0, position.seconds + offset.seconds)
        try seek(to: MediaTime(seconds: target))
    }

    /// 0 … 1; muting keeps it.
    public var volume: Float {
        get { volumeState.withLock { $0.volume } }
        set {
            let applied = volumeState.withLock { state in
                state.volume = min(max(newValue, 0), 1)
                return state.muted ? 0 : state.volume
            }
            control?.volume = applied
        }
    }

    /// Silences the sound without losing `volume` (the m key).
    public var isMuted: Bool {
        get { volumeState.withLock { $0.muted } }
        set {
            let applied = volumeState.withLock { state in
                state.muted = newValue
                return state.muted ? 0 : state.volume
            }
            control?.volume = applied
        }
    }

    /// Ends playback; `run()` returns.
    public func stop() { session.stop() }

    /// The tracks that ended early because the file was cut (see `Demuxer.truncations`).
    public var truncations: [Truncation] { demuxer.truncations }

    /// Counters so far.
    public var statistics: PlaybackStatistics { session.snapshot.statistics }

    private func handle(_ input: WindowInput) {
        switch input {
        case .togglePause: togglePause()
        case .seek(let seconds): try? seek(by: MediaTime(seconds: seconds))
        case .volume(let step): volume += step
        case .toggleMute: isMuted.toggle()
        case .quit: stop()
        }
    }

    /// A device that is unavailable, as a value (other errors are thrown): "no display (why)".
    private struct Unavailable: Error, CustomStringConvertible {
        let device: DeviceKind
        let reason: String
        var error: AVPipelineError { .deviceUnavailable(device, reason: reason) }
        var description: String { "no \(device) (\(reason))" }
    }

    private static func unavailable<T>(_ open: () throws -> T) throws -> Result<T, Unavailable> {
        do {
            return .success(try open())
        } catch let error as AVPipelineError {
            guard case .deviceUnavailable(let device, let reason) = error else { throw error }
            return .failure(Unavailable(device: device, reason: reason))
        }
    }
}
