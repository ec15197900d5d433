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

    /// Starts the daemon, or returns nil (with the reason) where PulseAudio cannot start.
    /// `toneSource`: also a capture device (`module-sine-source`, mono float at 48 kHz) that
    /// produces a sine of that frequency, delivered in 2 s blocks. (The null sink stays: SDL 2.26
    /// crashes on a server without any sink.)
    public static func start(sampleRate: Int = 44_100, channels: Int = 2, toneSource: Int? = nil) -> (server: PulseAudioServer?, reason: String?) {
        guard Subprocess.isAvailable("pulseaudio"), Subprocess.isAvailable("parec") else {
            return (nil, "pulseaudio/parec are not installed (scripts/setup.sh installs them)")
        }
        let server = PulseAudioServer(sampleRate: sampleRate, channels: channels)
        // -n: no default configuration; --system=false with a private runtime dir also works as root.
        let arguments = ["-D", "-n", "--system=false", "--exit-idle-time=-1", "--daemonize=yes", "--use-pid-file=yes",
                         "--load=module-native-protocol-unix auth-anonymous=1",
                         "--load=module-null-sink sink_name=\(server.sinkName) rate=\(sampleRate) channels=\(channels)"]
            + (toneSource.map { ["--load=module-sine-source source_name=\(toneSourceName) rate=48000 frequency=\($0) source_properties=device.description=\(toneSourceName)"] } ?? [])
        do {
            let result = try Subprocess.run("pulseaudio", arguments, environment: server.environment)
            guard result.status == 0 else { return (nil, "pulseaudio did not start: \(result.stderrText)") }
            let info = try Subprocess.run("pactl", ["list", "short", "sinks"], environment: server.environment)
            guard info.status == 0, info.stdoutText.contains(server.sinkName) else {
                return (nil, "pulseaudio started but its null sink is missing: \(info.stderrText)")
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
