import AVPipeline

/// SDL2's devices: the player window (X11, Wayland, Cocoa), audio output and audio input
/// (PulseAudio, PipeWire, ALSA, CoreAudio), as the core's device protocols ask for them.
///
/// What `Player(path:)`, `AudioRenderer(upstream:)`, `VideoRenderer(upstream:)` and
/// `DeviceCapture(options:)` use when no devices are named; pass it (or devices of your own) to the
/// core's initialisers that take `devices:`. SDL2 itself is loaded on first use.
public struct SDLDevices: PlaybackDevices, CaptureDevices {
    /// SDL2's devices (nothing is opened until asked).
    public init() {}

    /// Opens an SDL2 output device; see `PlaybackDevices.openAudioOutput(named:preferred:)`.
    public func openAudioOutput(named name: String?, preferred: AudioFormat) throws -> any AudioOutputDevice {
        try SDLAudioOutput(deviceName: name, preferred: preferred)
    }

    /// Whether an SDL2 texture takes `pixelFormat` as it is (YUV 4:2:0 planar, NV12/NV21, packed 4:2:2).
    public func showsWithoutConversion(_ pixelFormat: PixelFormat) -> Bool {
        SDLVideoWindow.textureFormat(for: pixelFormat) != nil
    }

    /// Opens a resizable SDL2 window; throws `deviceUnavailable` (`.display`) without a display.
    public func openWindow(title: String, format: VideoFormat, fullscreen: Bool) throws -> any PictureWindow {
        try SDLVideoWindow(title: title, format: format, fullscreen: fullscreen)
    }

    /// Opens an SDL2 capture device; see `CaptureDevices.openAudioInput(named:sampleRate:channelCount:)`.
    public func openAudioInput(named name: String?, sampleRate: Int?, channelCount: Int?) throws -> any AudioInputDevice {
        try SDLAudioInput(deviceName: name, sampleRate: sampleRate, channelCount: channelCount)
    }
}
