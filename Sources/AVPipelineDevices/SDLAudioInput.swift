import AVPipeline
internal import CSDL2
internal import CSDL2Loader

/// The audio input (capture) devices of the system.
public enum AudioInputDevices {
    /// Names of the input devices, as `DeviceCapture.Options.device` takes them; throws
    /// `deviceUnavailable` (`.audioInput`) when no audio driver can start.
    public static func names() throws -> [String] { try SDLAudio.deviceNames(capture: true) }
}

/// An input device opened through SDL2's capture API (PulseAudio/PipeWire/ALSA on Linux, CoreAudio
/// on macOS). Its callback, on SDL's audio thread, copies each captured block into the ring.
final class SDLAudioInput: AudioInputDevice, Sendable {
    let format: AudioFormat
    let name: String
    private let device: SDLAudioDevice
    /// The ring the callback writes, set by `start`.
    private let slot = SDLCallbackSlot<CaptureRing>()

    /// Opens `deviceName` (nil: the system's default input), asking for `sampleRate`/`channelCount`
    /// (nil: the device's own) in 32-bit float, and taking whatever rate, channels and format the
    /// device grants instead.
    init(deviceName: String?, sampleRate: Int?, channelCount: Int?) throws(AVPipelineError) {
        try SDLAudio.acquire(for: .audioInput)
        let names = SDLAudio.currentDeviceNames(capture: true)
        if let deviceName, !names.contains(deviceName) {
            SDLAudio.release()
            throw .deviceUnavailable(.audioInput, reason: "no input device is named '\(deviceName)'; the devices are: "
                                          + (names.isEmpty ? "none" : names.map { "'\($0)'" }.joined(separator: ", ")))
        }
        if deviceName == nil && names.isEmpty {
            SDLAudio.release()
            throw .deviceUnavailable(.audioInput, reason: "the audio driver (\(SDLAudio.driverName ?? "none")) lists no input device")
        }
        let preferred = Self.preferredSpec(of: deviceName, among: names)
        var desired = SDL_AudioSpec()
        desired.freq = Int32(sampleRate ?? preferred?.rate ?? 48_000)
        desired.channels = UInt8(clamping: channelCount ?? preferred?.channels ?? 2)
        desired.format = avp_sdl_audio_f32sys()
        desired.samples = 1024
        desired.callback = { userdata, stream, length in
            guard let userdata, let stream else { return }
            SDLCallbackSlot<CaptureRing>.target(of: userdata)?.write(UnsafeRawBufferPointer(start: stream, count: Int(length)))
        }
        desired.userdata = slot.userdata
        guard let opened = SDLAudio.open(deviceName, capture: true, desired) else {
            let reason = SDLAudio.lastError
            SDLAudio.release()
            throw .deviceUnavailable(.audioInput, reason: "\(deviceName.map { "'\($0)'" } ?? "the default input") cannot be opened (audio driver: \(SDLAudio.driverName ?? "none")): \(reason)")
        }
        (device, format) = (opened.device, opened.format)
        name = deviceName ?? "the default input"
    }

    // Closed before the slot the callback reads can go.
    deinit { device.close() }

    func start(into ring: CaptureRing) {
        slot.target = ring
        device.setPaused(false)
    }

    func close() { device.close() }

    /// The rate and channel count the device works at (its default one's when `name` is nil and
    /// the driver lists one input only), so that nothing is resampled unless asked.
    private static func preferredSpec(of name: String?, among names: [String]) -> (rate: Int, channels: Int)? {
        let index = name.flatMap { names.firstIndex(of: $0) } ?? (names.count == 1 ? 0 : nil)
        guard let index else { return nil }
        var spec = SDL_AudioSpec()
        guard SDL_GetAudioDeviceSpec(Int32(index), 1, &spec) == 0, spec.freq > 0, spec.channels > 0 else { return nil }
        return (Int(spec.freq), Int(spec.channels))
    }
}
