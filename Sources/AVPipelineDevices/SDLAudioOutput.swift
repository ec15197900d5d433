import AVPipeline
internal import CSDL2
internal import CSDL2Loader

/// An output device opened through SDL2 with a pull callback. It asks for the source's rate and
/// channels in 32-bit float and accepts whatever rate, channel count and sample format the device
/// grants instead (the renderer converts to it).
final class SDLAudioOutput: AudioOutputDevice, Sendable {
    let format: AudioFormat
    let bufferFrames: Int
    private let device: SDLAudioDevice
    /// The feed the callback reads, set by `attach`.
    private let slot = SDLCallbackSlot<RenderFeed>()

    init(deviceName: String?, preferred: AudioFormat) throws(AVPipelineError) {
        try SDLAudio.acquire()
        var desired = SDL_AudioSpec()
        desired.freq = Int32(preferred.sampleRate)
        desired.channels = UInt8(clamping: preferred.channelCount)
        desired.format = avp_sdl_audio_f32sys()
        desired.samples = Self.callbackFrames(forRate: preferred.sampleRate)
        desired.callback = { userdata, stream, length in
            guard let userdata, let stream else { return }
            if let feed = SDLCallbackSlot<RenderFeed>.target(of: userdata) {
                feed.render(into: stream, count: Int(length))
            } else {
                stream.initialize(repeating: 0, count: Int(length))
            }
        }
        desired.userdata = slot.userdata
        guard let opened = SDLAudio.open(deviceName, capture: false, desired) else {
            let reason = SDLAudio.lastError
            let driver = SDLAudio.driverName.map { " (audio driver: \($0))" } ?? ""
            SDLAudio.release()
            throw .deviceUnavailable(.audioOutput, reason: "\(deviceName.map { "'\($0)'" } ?? "the default device") cannot be opened\(driver): \(reason)")
        }
        (device, format, bufferFrames) = opened
    }

    // Closed before the slot the callback reads can go.
    deinit { device.close() }

    func attach(_ feed: RenderFeed) { slot.target = feed }

    func setPaused(_ paused: Bool) { device.setPaused(paused) }

    func close() { device.close() }

    /// About 20 ms per callback, as a power of two (1024 frames at 44.1/48 kHz; ffplay takes twice
    /// that). The clock counts two callbacks as the device's latency, as ffplay does; measured on a
    /// PulseAudio null sink, that reads ~8 ms behind the sound with 1024 frames and ~22 ms with
    /// 2048, whose start-up also drifted past the ±45 ms sync limit once under a loaded CI run.
    private static func callbackFrames(forRate rate: Int) -> UInt16 {
        var frames = 512
        while frames * 50 < rate && frames < 8192 { frames *= 2 }
        return UInt16(frames)
    }
}
