import AVPipeline
internal import CSDL2
internal import CSDL2Loader
import Synchronization

/// An output device opened through SDL2 with a pull callback. It asks for the source's rate and
/// channels in 32-bit float and accepts whatever rate, channel count and sample format the device
/// grants instead (the renderer converts to it).
///
/// `@unchecked Sendable`: `id`, `format` and `bufferFrames` are immutable; SDL's device calls are
/// thread-safe; `closed` is atomic; the feed slot is written once before the device first runs.
final class SDLAudioOutput: AudioOutputDevice, @unchecked Sendable {
    let format: AudioFormat
    let bufferFrames: Int
    private let id: SDL_AudioDeviceID
    private let slot: FeedSlot
    private let closed = Atomic(false)

    /// Holds the feed the callback reads. Written once (in `attach`) while the device is paused —
    /// SDL does not call the callback of a paused device, and unpausing takes the device lock the
    /// audio thread takes too, which orders that write before every read.
    private final class FeedSlot: @unchecked Sendable {
        nonisolated(unsafe) var feed: RenderFeed?
    }

    init(deviceName: String?, preferred: AudioFormat) throws(AVPipelineError) {
        try SDLAudio.acquire()
        slot = FeedSlot()
        var desired = SDL_AudioSpec()
        desired.freq = Int32(preferred.sampleRate)
        desired.channels = UInt8(clamping: preferred.channelCount)
        desired.format = avp_sdl_audio_f32sys()
        desired.samples = Self.callbackFrames(forRate: preferred.sampleRate)
        desired.callback = { userdata, stream, length in
            guard let userdata, let stream else { return }
            Unmanaged<FeedSlot>.fromOpaque(userdata)._withUnsafeGuaranteedRef { slot in
                if let feed = slot.feed {
                    feed.render(into: stream, count: Int(length))
                } else {
                    stream.initialize(repeating: 0, count: Int(length))
                }
            }
        }
        desired.userdata = Unmanaged.passUnretained(slot).toOpaque()
        guard case let (id, obtained, sampleFormat)? = SDLAudio.open(deviceName, capture: false, desired) else {
            let reason = SDLAudio.lastError
            let driver = SDLAudio.driverName.map { " (audio driver: \($0))" } ?? ""
            SDLAudio.release()
            throw .deviceUnavailable(.audioOutput, reason: "\(deviceName.map { "'\($0)'" } ?? "the default device") cannot be opened\(driver): \(reason)")
        }
        self.id = id
        bufferFrames = Int(obtained.samples)
        format = AudioFormat(sampleFormat: sampleFormat, sampleRate: Int(obtained.freq),
                             channelLayout: .default(channelCount: Int(obtained.channels)))
    }

    deinit {
        close()
        SDLAudio.release()
    }

    func attach(_ feed: RenderFeed) { slot.feed = feed }

    func setPaused(_ paused: Bool) {
        guard !closed.load(ordering: .acquiring) else { return }
        SDL_PauseAudioDevice(id, paused ? 1 : 0)
    }

    func close() {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        // SDL waits for the device thread to stop (and for its last buffers to play) before returning.
        SDL_CloseAudioDevice(id)
    }

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
