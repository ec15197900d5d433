import Foundation

/// A private PulseAudio daemon with one null sink, for tests that play through a real sound server
/// and record what it played from the sink's monitor. Its socket lives in a fresh XDG_RUNTIME_DIR,
/// so it never touches a user's session; it is killed when released.
public final class PulseAudioServer: @unchecked Sendable {
    public let runtimeDirectory: TemporaryDirectory
    public let sinkName = "avpipe_test_sink"
    public let sampleRate: Int
    public let channels: Int

    /// Environment for clients (avpipe, parec): the private server, and SDL pinned to PulseAudio so
    /// it cannot fall back to another driver.
    public var environment: [String: String] {
        ["XDG_RUNTIME_DIR": runtimeDirectory.path, "PULSE_SERVER": "unix:\(runtimeDirectory.path)/pulse/native",
         "HOME": runtimeDirectory.path, "SDL_AUDIODRIVER": "pulseaudio"]
    }

    /// The capture device `start(toneSource:)` adds, as SDL names it (its description).
    public static let toneSourceName = "avpipe_test_tone"

    /// The null sink the tone is played into, under `toneSourceName`'s capture device.
    public static let toneSinkName = "avpipe_tone_sink"

    /// What is missing to start a server, or nil: the tests that need one are skipped without it.
    public static var missingTool: String? {
        guard Subprocess.isAvailable("pulseaudio"), Subprocess.isAvailable("parec") else {
            return "pulseaudio/parec are not installed (scripts/setup.sh installs them)"
        }
        return nil
    }

    /// A started server; where the tools are installed, one that does not start is a failure.
    public static func started(sampleRate: Int = 44_100, channels: Int = 2, toneSource: Int? = nil,
                               microphone: Bool = false) throws -> PulseAudioServer {
        let (server, reason) = start(sampleRate: sampleRate, channels: channels, toneSource: toneSource, microphone: microphone)
        guard let server else { throw TestFailure(reason ?? "pulseaudio did not start") }
        return server
    }

    /// Starts the daemon, or returns nil (with the reason) where PulseAudio cannot start.
    /// `toneSource`: also a capture device, the default one, that produces a sine of that
    /// frequency (mono float at 48 kHz, half of full scale): `module-sine` plays it into a null
    /// sink of that format, and `module-remap-source` offers the sink's monitor as a microphone
    /// (SDL lists no monitors). The server's clock paces it, and it delivers in the blocks its
    /// reader asks for (SDL: ~21 ms), as a sound card does. Not `module-sine-source`: it posts
    /// 2 s blocks, on which SDL 2.28+'s threaded PulseAudio code stalls. While a device is paused
    /// (from its opening until it is started), SDL's capture thread flushes what is readable, and
    /// `PULSEAUDIO_FlushCapture` waits for a new server event before dropping each fragment of
    /// what it counted at the start; with 2 s between events, the thread stays in that loop after
    /// the device is started (SDL 2.32: no audio for 5 s in most runs). SDL 2.26 flushes without
    /// waiting. The first null sink stays the default sink (SDL 2.26 crashes on a server without any sink).
    /// `microphone`: the same capture device with the sine turned down to 1 % (a quiet room, which
    /// keeps the sink running in small blocks: a silent one leaves SDL's capture without audio for
    /// seconds), for sounds played into `toneSinkName` (`pacat -d avpipe_tone_sink`) to stand out.
    public static func start(sampleRate: Int = 44_100, channels: Int = 2, toneSource: Int? = nil,
                             microphone: Bool = false) -> (server: PulseAudioServer?, reason: String?) {
        let toneSource: Int? = microphone ? 440 : toneSource
        if let missing = missingTool { return (nil, missing) }
        let server = PulseAudioServer(sampleRate: sampleRate, channels: channels)
        // -n: no default configuration; --system=false with a private runtime dir also works as root.
        let arguments = ["-D", "-n", "--system=false", "--exit-idle-time=-1", "--daemonize=yes", "--use-pid-file=yes",
                         "--load=module-native-protocol-unix auth-anonymous=1",
                         "--load=module-null-sink sink_name=\(server.sinkName) rate=\(sampleRate) channels=\(channels)"]
            + (toneSource.map { frequency in
                ["--load=module-null-sink sink_name=\(toneSinkName) rate=48000 channels=1 format=float32le sink_properties=device.description=\(toneSinkName)",
                 "--load=module-sine sink=\(toneSinkName) frequency=\(frequency)",
                 "--load=module-remap-source source_name=\(toneSourceName) master=\(toneSinkName).monitor source_properties=device.description=\(toneSourceName)"]
            } ?? [])
        do {
            let result = try Subprocess.run("pulseaudio", arguments, environment: server.environment)
            guard result.status == 0 else { return (nil, "pulseaudio did not start: \(result.stderrText)") }
            let info = try Subprocess.run("pactl", ["list", "short", "sinks"], environment: server.environment)
            guard info.status == 0, info.stdoutText.contains(server.sinkName) else {
                return (nil, "pulseaudio started but its null sink is missing: \(info.stderrText)")
            }
            if toneSource != nil {
                let chosen = try Subprocess.run("pactl", ["set-default-source", toneSourceName], environment: server.environment)
                guard chosen.status == 0 else { return (nil, "pulseaudio started but its tone source is missing: \(chosen.stderrText)") }
                if microphone {
                    // The sine is the server's only stream: sink input 0.
                    let quiet = try Subprocess.run("pactl", ["set-sink-input-volume", "0", "1%"], environment: server.environment)
                    guard quiet.status == 0 else { return (nil, "pulseaudio started but its tone cannot be turned down: \(quiet.stderrText)") }
                }
            }
        } catch {
            return (nil, "pulseaudio could not be run: \(error)")
        }
        return (server, nil)
    }

    private init(sampleRate: Int, channels: Int) {
        runtimeDirectory = TemporaryDirectory("avpipe-pulse")
        self.sampleRate = sampleRate
        self.channels = channels
    }

    deinit { _ = try? Subprocess.run("pulseaudio", ["--kill"], environment: environment) }

    /// Starts `parec` on the sink's monitor, writing raw s16le to `path`; end it with `stopRecording`.
    public func record(to path: String) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["sh", "-c", "exec parec -d \(sinkName).monitor --rate=\(sampleRate) --channels=\(channels) --format=s16le --latency-msec=10 --raw > '\(path)'"]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Ends a recording. SIGKILL, because a child spawned from a test thread inherits that thread's
    /// blocked SIGTERM/SIGINT; parec writes as it goes, so nothing recorded is lost.
    public func stopRecording(_ recorder: Process) {
        kill(recorder.processIdentifier, SIGKILL)
        recorder.waitUntilExit()
    }
}
