import AVPipeline
internal import CSDL2
internal import CSDL2Loader
import Synchronization

/// The audio output devices of the system (SDL2's).
public enum AudioOutputDevices {
    /// Names of the output devices (for `AudioRendererOptions.device`, `PlayerOptions.audioDevice`);
    /// throws `deviceUnavailable` (`.audioOutput`) when no audio driver can start.
    public static func names() throws -> [String] { try SDLAudio.deviceNames(capture: false) }
}

/// SDL2's audio subsystem, initialised while at least one user needs it, and what its output and
/// input devices share: listing them, and opening one in a format we take.
enum SDLAudio {
    /// Starts the subsystem for an output or an input `device` (the kind a failure names).
    static func acquire(for device: DeviceKind = .audioOutput) throws(AVPipelineError) {
        do {
            try SDLSubsystems.acquire(avp_sdl_init_audio(), for: device) {
                SDL_SetHint("SDL_AUDIO_DEVICE_APP_NAME", "avpipe")
                avp_silence_alsa()
            }
        } catch {
            guard avp_sdl_available() != 0 else { throw error }
            throw .deviceUnavailable(device, reason: "no audio driver could start (\(lastError)); start a sound server such as PulseAudio or PipeWire")
        }
    }

    static func release() { SDLSubsystems.release(avp_sdl_init_audio()) }

    static var lastError: String { SDLSubsystems.lastError }

    static var driverName: String? { SDL_GetCurrentAudioDriver().map { String(cString: $0) } }

    /// Names of the input (`capture`) or output devices the audio driver offers, starting it for
    /// the listing.
    static func deviceNames(capture: Bool) throws(AVPipelineError) -> [String] {
        try acquire(for: capture ? .audioInput : .audioOutput)
        defer { release() }
        return currentDeviceNames(capture: capture)
    }

    /// The same, with the subsystem already started.
    static func currentDeviceNames(capture: Bool) -> [String] {
        let isCapture: Int32 = capture ? 1 : 0
        let count = SDL_GetNumAudioDevices(isCapture)
        return (0..<max(count, 0)).compactMap { index in SDL_GetAudioDeviceName(index, isCapture).map { String(cString: $0) } }
    }

    /// Opens the input (`capture`) or output device `name` (nil: the default) as `desired` asks,
    /// taking whatever rate, channel count and format it grants; where that format is one we do
    /// not take (big-endian, 8-bit signed…), opens it again with SDL converting to or from
    /// `desired`'s. The device comes paused, with its format and the frames of one callback; nil
    /// when it cannot be opened (see `lastError`). The caller has acquired the subsystem; the
    /// device, once opened, releases it when it goes.
    static func open(_ name: String?, capture: Bool, _ desired: SDL_AudioSpec) -> (device: SDLAudioDevice, format: AudioFormat, bufferFrames: Int)? {
        let rateAndChannels = avp_sdl_allow_frequency_change() | avp_sdl_allow_channels_change()
        for allowed in [rateAndChannels | avp_sdl_allow_format_change(), rateAndChannels] {
            var (desired, obtained) = (desired, SDL_AudioSpec())
            let id = SDL_OpenAudioDevice(name, capture ? 1 : 0, &desired, &obtained, allowed)
            guard id != 0 else { return nil }
            if let sampleFormat = sampleFormat(of: obtained.format), obtained.freq > 0, obtained.channels > 0 {
                let format = AudioFormat(sampleFormat: sampleFormat, sampleRate: Int(obtained.freq),
                                         channelLayout: .default(channelCount: Int(obtained.channels)))
                return (SDLAudioDevice(id: id), format, Int(obtained.samples))
            }
            SDL_CloseAudioDevice(id)
        }
        return nil
    }

    /// The interleaved sample format for an SDL audio format in native byte order, if we take it.
    static func sampleFormat(of format: SDL_AudioFormat) -> SampleFormat? {
        switch format {
        case avp_sdl_audio_u8(): .u8
        case avp_sdl_audio_s16sys(): .s16
        case avp_sdl_audio_s32sys(): .s32
        case avp_sdl_audio_f32sys(): .flt
        default: nil
        }
    }
}

/// An open SDL2 audio device, input or output: run or held from any thread (SDL's device calls are
/// thread-safe), closed once, and the audio subsystem released when it goes.
final class SDLAudioDevice: Sendable {
    private let id: SDL_AudioDeviceID
    private let closed = Atomic(false)

    fileprivate init(id: SDL_AudioDeviceID) { self.id = id }

    deinit {
        close()
        SDLAudio.release()
    }

    /// Holds or runs the device (SDL calls no callback of a held one); nothing once closed.
    func setPaused(_ paused: Bool) {
        guard !closed.load(ordering: .acquiring) else { return }
        SDL_PauseAudioDevice(id, paused ? 1 : 0)
    }

    /// Stops the device for good; idempotent. SDL returns once the device thread has stopped (an
    /// output's last buffers played): no callback runs after it.
    func close() {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        SDL_CloseAudioDevice(id)
    }
}

/// What an SDL audio callback reads (an output's feed, an input's ring), passed to it as its
/// userdata. Written once while the device is held: SDL calls no callback of a held device, and
/// running it takes the device lock the audio thread takes too, which orders that write before
/// every read (hence `@unchecked Sendable`).
final class SDLCallbackSlot<Target: AnyObject>: @unchecked Sendable {
    nonisolated(unsafe) var target: Target?

    /// The userdata to open the device with (the slot must outlive the device).
    var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    /// In the callback: the target of the slot `userdata` points to, without retaining it.
    static func target(of userdata: UnsafeMutableRawPointer) -> Target? {
        Unmanaged<SDLCallbackSlot>.fromOpaque(userdata)._withUnsafeGuaranteedRef { $0.target }
    }
}
