/// An audio input device as `DeviceCapture` sees it: opened with some format (whatever the device
/// granted), it pushes interleaved PCM into a `CaptureRing` on its own thread, at its own pace,
/// from `start` until `close`. `SDLAudioInput` is the real one; tests drive a generated one.
protocol AudioInput: AnyObject, Sendable {
    /// The format the device delivers (interleaved u8/s16/s32/flt).
    var format: AudioFormat { get }
    /// The device's name, for messages.
    var name: String { get }
    /// Starts delivering into `ring`; called once.
    func start(into ring: CaptureRing)
    /// Stops the device for good (no write into the ring follows); idempotent.
    func close()
}
