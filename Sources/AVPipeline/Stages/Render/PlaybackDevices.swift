/// Where a playback's sound and picture go: opens an audio output device and a picture window.
///
/// The core defines it and never names a device system; AVPipelineDevices' `SDLDevices` is the
/// usual one (`Player(path:)` there uses it), and a platform adds its own devices by conforming.
/// Opening throws `AVPipelineError.deviceUnavailable` when the device is missing, which `Player`
/// turns into a notice when the other half can still play.
public protocol PlaybackDevices: Sendable {
    /// Opens the output device `name` (nil: the system's default), asking for `preferred` and
    /// accepting what the device grants (the device's `format`).
    func openAudioOutput(named name: String?, preferred: AudioFormat) throws -> any AudioOutputDevice
    /// Whether the window shows pictures of `pixelFormat` as they are; others are converted to
    /// YUV 4:2:0 before they reach `PictureWindow.show(_:)`.
    func showsWithoutConversion(_ pixelFormat: PixelFormat) -> Bool
    /// Opens a window for pictures of `format` (black until the first one).
    func openWindow(title: String, format: VideoFormat, fullscreen: Bool) throws -> any PictureWindow
}
