import AVPipeline

// The core's device users, spelled as before the devices moved out: each opens SDL2's devices
// (`SDLDevices`), so `import AVPipelineDevices` is all a program that plays or records needs.

extension Player {
    /// Opens the file, its decoders, an SDL2 window and audio device (see `init(_:options:devices:)`).
    public convenience init(path: String, options: PlayerOptions = .init()) throws {
        try self.init(.path(path), options: options, devices: SDLDevices())
    }

    /// Plays a file or a network address on SDL2's window and audio device.
    public convenience init(_ location: InputLocation, options: PlayerOptions = .init()) throws {
        try self.init(location, options: options, devices: SDLDevices())
    }
}

extension AudioRenderer {
    /// Opens an SDL2 output device (paused; `run()` starts it); see `init(upstream:devices:options:)`.
    public convenience init(upstream: Upstream, options: Options = Options()) throws {
        try self.init(upstream: upstream, devices: SDLDevices(), options: options)
    }

    /// The output devices the system offers (names for `Options.device`).
    public static func outputDevices() throws -> [String] { try AudioOutputDevices.names() }
}

extension VideoRenderer {
    /// Opens an SDL2 window (black until the first picture); see `init(upstream:devices:options:)`.
    public convenience init(upstream: Upstream, options: Options = .init()) throws {
        try self.init(upstream: upstream, devices: SDLDevices(), options: options)
    }
}

extension SampleSource where Buffer == PCMBuffer {
    /// Plays this PCM on the default (or a named) SDL2 output device; returns when it has been played.
    @discardableResult
    public func play(_ options: AudioRenderer<Self>.Options = .init(),
                     progress: ((MediaTime) -> Void)? = nil) async throws -> AudioPlaybackStatistics {
        try await play(on: SDLDevices(), options, progress: progress)
    }
}

extension SampleSource where Buffer == VideoFrame {
    /// Shows these pictures in an SDL2 window at their times (see `VideoRenderer`); returns at the end.
    @discardableResult
    public func show(_ options: VideoRendererOptions = .init()) async throws -> PlaybackStatistics {
        try await show(on: SDLDevices(), options)
    }
}

extension DeviceCapture {
    /// Opens an SDL2 input device (capture starts at the first pull); see `init(options:devices:)`.
    public convenience init(options: Options = Options()) throws {
        try self.init(options: options, devices: SDLDevices())
    }
}

extension RecordingSession {
    /// A recording whose microphone is opened through SDL2; see `init(output:options:devices:)`.
    public convenience init(output: String, options: Options) throws {
        try self.init(output: output, options: options, devices: SDLDevices())
    }
}
