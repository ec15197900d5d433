/// An audio input device as `DeviceCapture` sees it: opened with some format (whatever the device
/// granted), it pushes interleaved PCM into a `CaptureRing` on its own thread, at its own pace,
/// from `start` until `close`. AVPipelineDevices has the SDL2 one; tests drive a generated one.
public protocol AudioInputDevice: AnyObject, Sendable {
    /// The format the device delivers (interleaved u8/s16/s32/flt).
    var format: AudioFormat { get }
    /// The device's name, for messages.
    var name: String { get }
    /// Starts delivering into `ring` (`CaptureRing.write(_:)`, from the device's thread); called once.
    func start(into ring: CaptureRing)
    /// Stops the device for good (no write into the ring follows); idempotent.
    func close()
}

/// Where a recording's sound comes from: opens audio input devices by name.
///
/// The core defines it and never names a device system; AVPipelineDevices' `SDLDevices` is the
/// usual one (`DeviceCapture(options:)` there uses it).
public protocol CaptureDevices: Sendable {
    /// Opens the input `name` (nil: the system's default), asking for `sampleRate` and
    /// `channelCount` (nil: the device's own) and accepting what the device grants. Throws
    /// `AVPipelineError.deviceUnavailable` (`.audioInput`) when it cannot be opened.
    func openAudioInput(named name: String?, sampleRate: Int?, channelCount: Int?) throws -> any AudioInputDevice
}
