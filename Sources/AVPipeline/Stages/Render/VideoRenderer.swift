/// How a `VideoRenderer` shows pictures.
public struct VideoRendererOptions: Sendable {
    /// The window's title.
    public var title: String
    /// Starts in full screen (f toggles it).
    public var fullscreen: Bool

    /// A window titled "avpipe", not full screen, unless told otherwise.
    public init(title: String = "avpipe", fullscreen: Bool = false) {
        self.title = title
        self.fullscreen = fullscreen
    }
}

/// Shows pictures in a window (a `PictureWindow`, AVPipelineDevices' SDL2 one by default), each at
/// its presentation time on the wall clock (the first at once): the picture half of `Player`, for any source of `VideoFrame`s.
///
/// The window is resizable and letterboxes the picture, shaped by its pixel aspect ratio and
/// turned and mirrored as its format says; formats the window cannot show are converted to YUV
/// 4:2:0 first. It decodes at most a few pictures ahead (the pull bound), drops a picture late by
/// more than a frame, and counts both. Space pauses, f toggles full screen, q, Esc or closing the
/// window ends `run()`.
public final class VideoRenderer<Upstream: SampleSource> where Upstream.Buffer == VideoFrame {
    /// The options, spelled `VideoRenderer.Options` at the call site.
    public typealias Options = VideoRendererOptions

    private let window: any PictureWindow
    private let session: PlaybackSession
    private let lane: LockedState<OwnershipTransfer<VideoLane<Upstream>>?>

    /// Opens a window of `devices` (black until the first picture). Throws `deviceUnavailable`
    /// (`.display`) without a display, saying what to do. (AVPipelineDevices adds
    /// `init(upstream:options:)`, which opens an SDL2 window.)
    public init(upstream: Upstream, devices: some PlaybackDevices, options: Options = .init()) throws {
        let lane = try VideoLane(pictures: upstream, shows: devices.showsWithoutConversion)
        window = try devices.openWindow(title: options.title, format: lane.format, fullscreen: options.fullscreen)
        session = PlaybackSession(clock: PlaybackClock(start: 0, audio: nil), hasAudio: false, hasVideo: true)
        self.lane = LockedState(OwnershipTransfer(lane))
    }

    deinit { window.close() }

    /// Shows every picture, then returns (or when the viewer quits, or `stop()` is called).
    @discardableResult
    public func run() async throws -> PlaybackStatistics {
        let taken = lane.withLock { (box: inout OwnershipTransfer<VideoLane<Upstream>>?) -> OwnershipTransfer<VideoLane<Upstream>>? in
            defer { box = nil }
            return box
        }
        guard let lane = taken?.value else {
            throw AVPipelineError.invalidOption(name: "run", value: "again", reason: "a renderer shows its pictures once")
        }
        let (session, window) = (session, window)
        defer { window.close() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            VideoLane.start(lane, in: &group, window: window, session: session)
            group.addTask {
                for await input in window.inputs {
                    switch input {
                    case .quit: session.stop()
                    case .togglePause:
                        let paused = !session.snapshot.paused
                        session.setPaused(paused)
                        paused ? session.clock.pause() : session.clock.resume()
                    case .seek, .volume, .toggleMute: break  // a stream of pictures has neither
                    }
                }
            }
            defer { group.cancelAll() }
            try await session.waitUntilFinished()
        }
        return session.snapshot.statistics
    }

    /// Ends the showing; `run()` returns.
    public func stop() { session.stop() }
}

extension SampleSource where Buffer == VideoFrame {
    /// Shows these pictures in a window of `devices` at their times (see `VideoRenderer`); returns
    /// at the end. (AVPipelineDevices adds `show(_:)` on an SDL2 window.)
    @discardableResult
    public func show(on devices: some PlaybackDevices, _ options: VideoRendererOptions = .init()) async throws -> PlaybackStatistics {
        try await VideoRenderer(upstream: self, devices: devices, options: options).run()
    }
}
