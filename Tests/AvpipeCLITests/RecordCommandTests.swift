import Foundation
import Testing
import TestSupport

/// `avpipe record` from a real capture device: a private PulseAudio server whose tone source
/// (440 Hz, `PulseAudioServer.start(toneSource:)`) stands in for a microphone, paced by the
/// server's clock in small blocks. A burst (a device that delivers seconds at once, or a recorder
/// that was held up) is made by stopping avpipe (SIGSTOP) for 2 s: the server keeps what the
/// device captured meanwhile and hands it over at once when avpipe continues. Checked from
/// outside: ffmpeg's decode of the file, faad and GStreamer as independent readers. Skipped
/// where PulseAudio is not installed.
@Suite(.serialized, .needsSoundServer) struct RecordCommandTests {
    static let frequency = 440.0

    static func server() throws -> PulseAudioServer {
        try PulseAudioServer.started(toneSource: Int(frequency))
    }

    /// The recording as ffmpeg decodes it: mono float at 48 kHz.
    static func decoded(_ path: String) throws -> [Float] {
        let result = try Subprocess.run("ffmpeg", ["-v", "error", "-i", path, "-ac", "1", "-ar", "48000", "-f", "f32le", "-"])
        guard result.status == 0 else { throw TestFailure("ffmpeg cannot decode \(path): \(result.stderrText)") }
        return result.stdout.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    /// Where the signal crosses zero upwards, to a fraction of a sample (linear interpolation).
    static func upCrossings(_ samples: [Float]) -> [Double] {
        var crossings: [Double] = []
        for i in 1..<samples.count where samples[i - 1] < 0 && samples[i] >= 0 {
            crossings.append(Double(i - 1) + Double(-samples[i - 1] / (samples[i] - samples[i - 1])))
        }
        return crossings
    }

    /// The tone's frequency over the whole recording, and the worst deviation of one period from
    /// the ideal: a dropout or a repeated block anywhere breaks a period.
    static func measure(_ samples: [Float], settling: Int = 2048) -> (frequency: Double, worstPeriodError: Double) {
        // The encoder's first and last frames ramp in and out: measure inside them.
        let inner = Array(samples.dropFirst(settling).dropLast(2048))
        let crossings = upCrossings(inner)
        guard crossings.count > 2 else { return (0, .infinity) }
        let frequency = Double(crossings.count - 1) / ((crossings.last! - crossings.first!) / 48_000)
        let ideal = 48_000 / frequency
        let worst = zip(crossings, crossings.dropFirst()).map { abs(($1 - $0) - ideal) }.max() ?? .infinity
        return (frequency, worst)
    }

    /// Holds a running recorder up for `seconds` once its file holds a written fragment (an M4A's
    /// first second), so that the device's audio of those seconds reaches it in one burst.
    static func holdUp(_ recorder: RunningProcess, writing output: String, for seconds: Double) {
        let deadline = Date().addingTimeInterval(15)
        while fileSize(output) < 10_000 && recorder.isRunning && Date() < deadline { usleep(50_000) }
        kill(recorder.identifier, SIGSTOP)
        usleep(UInt32(seconds * 1_000_000))
        kill(recorder.identifier, SIGCONT)
    }

    /// For each format: the file holds the device's tone, continuous, for exactly --duration. The
    /// M4A recording is held up for 2 s on the way: the ring (4 s) takes that burst whole.
    @Test(arguments: [("m4a", 10.0), ("aac", 4.0), ("wav", 4.0), ("ts", 4.0), ("m3u8", 4.0)])
    func recordsTheDevicesToneWhole(format: String, seconds: Double) throws {
        let server = try Self.server()
        let folder = TemporaryDirectory()
        let output = folder.file("live.\(format)")
        let recorder = try RunningProcess(Locations.avpipe, ["record", "--out", output, "--duration", "\(seconds)",
                                                             "--device", PulseAudioServer.toneSourceName], environment: server.environment)
        if format == "m4a" { Self.holdUp(recorder, writing: output, for: 2) }
        let result = try #require(recorder.finish(within: seconds + 30), "the recording ends after --duration")
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(!result.stderrText.contains("overrun"), "a 2 s burst fits the ring: \(result.stderrText)")
        let samples = try Self.decoded(output)
        let recorded = Double(samples.count) / 48_000
        // ADTS (also inside TS and HLS's TS segments) has no place for the encoder's priming and
        // padding: up to 2047 samples more.
        let tolerance = ["aac", "ts", "m3u8"].contains(format) ? 0.05 + 2048.0 / 48_000 : 0.05
        #expect(abs(recorded - seconds) <= tolerance, "\(format): \(recorded) s recorded for --duration \(seconds)")
        // The WAV is the device's samples as they came: exact periods from the start. AAC's rate
        // control settles on a pure tone over its first frames (periods off by up to ~4 samples
        // there, depending on the tone's phase when the capture began), so its first 0.25 s are
        // left out and a period may be off by up to 10 samples; a lost or repeated block (the
        // device's 10–21 ms) shifts a period by 40 samples or more.
        let (frequency, worst) = Self.measure(samples, settling: format == "wav" ? 2048 : 12_000)
        #expect(abs(frequency - Self.frequency) <= 1, "\(format): the tone is \(frequency) Hz")
        #expect(worst < (format == "wav" ? 0.01 : 10), "\(format): every period is whole (worst off by \(worst) samples): no dropout, no repeat")
        if format == "aac" || format == "m4a" {
            let faad = try Subprocess.run("faad", ["-q", "-o", folder.file("faad.wav"), output])
            #expect(faad.status == 0 && !faad.stderrText.lowercased().contains("error"), "faad: \(faad.stderrText)")
        }
        if format == "m4a" {
            #expect(try ContainerOracles.gstreamerDecodedBytes(output, video: false, in: folder) > 0)
        }
    }

    @Test func aSmallerRateAndMoreChannelsAreConverted() throws {
        let server = try Self.server()
        let folder = TemporaryDirectory()
        let output = folder.file("converted.m4a")
        let result = try Subprocess.run(Locations.avpipe, ["record", "--out", output, "--duration", "3", "--rate", "44100",
                                                           "--channels", "2", "--bitrate", "128k"], environment: server.environment)
        #expect(result.status == 0, "\(result.stderrText)")
        let probe = try Subprocess.run("ffprobe", ["-v", "error", "-show_entries", "stream=sample_rate,channels", "-of", "csv=p=0", output])
        #expect(probe.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == "44100,2")
    }

    /// Killed outright mid-recording: a fragmented M4A plays up to its last fragment, an ADTS file
    /// holds whole frames only, a WAV's data is read to its end.
    @Test(arguments: ["m4a", "aac", "wav"])
    func aKilledRecordingKeepsWhatWasWritten(format: String) throws {
        let server = try Self.server()
        let folder = TemporaryDirectory()
        let output = folder.file("killed.\(format)")
        let recorder = try RunningProcess(Locations.avpipe, ["record", "--out", output, "--device", PulseAudioServer.toneSourceName],
                                          environment: server.environment)
        // Wait for a few seconds of audio to be written.
        let deadline = Date().addingTimeInterval(15)
        while fileSize(output) < (format == "wav" ? 500_000 : 30_000) && Date() < deadline { usleep(100_000) }
        usleep(300_000)
        kill(recorder.identifier, SIGKILL)
        _ = recorder.finish(within: 5)
        let samples = try Self.decoded(output)
        #expect(samples.count >= 48_000, "\(format): at least a second survived: \(samples.count) samples")
        let (frequency, worst) = Self.measure(samples, settling: format == "wav" ? 2048 : 12_000)
        #expect(abs(frequency - Self.frequency) <= 1 && worst < (format == "wav" ? 0.01 : 10),
                "\(format): the tone survived whole: \(frequency) Hz, \(worst)")
        if format != "wav" {
            let faad = try Subprocess.run("faad", ["-q", "-o", folder.file("faad.wav"), output])
            #expect(faad.status == 0 && !faad.stderrText.lowercased().contains("error"), "faad: \(faad.stderrText)")
        }
        if format == "m4a" {
            #expect(try ContainerOracles.gstreamerDecodedBytes(output, video: false, in: folder) > 0, "GStreamer plays it")
        }
    }

    /// Ctrl-C (or SIGTERM) ends the recording as every command ends: the file complete (a WAV's
    /// sizes written), "interrupted", exit 130 (143).
    @Test(arguments: [("m4a", SIGINT), ("wav", SIGTERM)])
    func ctrlCCompletesTheFile(format: String, signal: Int32) throws {
        let server = try Self.server()
        let folder = TemporaryDirectory()
        let output = folder.file("stopped.\(format)")
        let recorder = try RunningProcess(Locations.avpipe, ["record", "--out", output], environment: server.environment)
        // Over a second written: a WAV's 250 kB (192 kB/s), an M4A's 100 kB (several seconds).
        let deadline = Date().addingTimeInterval(15)
        while fileSize(output) < (format == "wav" ? 250_000 : 100_000) && Date() < deadline { usleep(100_000) }
        kill(recorder.identifier, signal)
        let result = try #require(recorder.finish(within: 5), "the signal ends the recording")
        #expect(result.status == 128 + signal, "\(result.stderrText)")
        #expect(result.stderrText.contains("interrupted"))
        let samples = try Self.decoded(output)
        #expect(samples.count >= 48_000)
        if format == "wav" {
            let header = try fileBytes(output).prefix(8)
            let riffSize = header.dropFirst(4).enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
            #expect(riffSize == fileSize(output) - 8, "the RIFF size was written at the end")
        } else {
            let probe = try Subprocess.run("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", output])
            #expect(probe.status == 0 && probe.stderrText.isEmpty, "\(probe.stderrText)")
            // Completed, so gapless: the edit list and iTunSMPB agree on where the audio lies.
            let stream = try Probe.run(output)
            let tag = try GaplessTests.formatTag(output, "iTunSMPB").split(separator: " ")
            #expect(stream.int("start_pts") == 0 && tag.count == 12 && Int(tag[3], radix: 16) == stream.int("duration_ts"),
                    "\(stream.streams) \(tag)")
        }
    }

    /// On a terminal (a pty from `script`) a live line shows the time, the peak level and overruns.
    @Test func aTerminalShowsTheLiveLine() throws {
        let server = try Self.server()
        let folder = TemporaryDirectory()
        let command = "\(Locations.avpipe) record --out \(folder.file("live.m4a")) --duration 3"
        let result = try Subprocess.run("script", ["-qefc", command, "/dev/null"], environment: server.environment)
        #expect(result.status == 0, "\(result.stdoutText)")
        let screen = result.stdoutText
        #expect(screen.contains("recording 0:00:0"), "\(screen)")
        // The sine source's level: half of full scale, −6 dBFS.
        #expect(screen.contains("peak -6.0 dBFS"), "\(screen)")
        #expect(screen.contains("overruns 0"), "\(screen)")
    }

    /// A ring too small for a 2 s burst: the loss is reported, and the file is valid.
    @Test func overrunsAreReportedAndTheFileStaysValid() throws {
        let server = try Self.server()
        let folder = TemporaryDirectory()
        let output = folder.file("lossy.m4a")
        let recorder = try RunningProcess(Locations.avpipe, ["record", "--out", output, "--duration", "4", "--buffer", "0.5"],
                                          environment: server.environment)
        Self.holdUp(recorder, writing: output, for: 2)
        let result = try #require(recorder.finish(within: 30), "the recording ends after --duration")
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stderrText.contains("overrun"), "the loss is reported: \(result.stderrText)")
        let probe = try Subprocess.run("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", output])
        #expect(probe.status == 0 && probe.stderrText.isEmpty, "\(probe.stderrText)")
        let faad = try Subprocess.run("faad", ["-q", "-o", folder.file("faad.wav"), output])
        #expect(faad.status == 0 && !faad.stderrText.lowercased().contains("error"), "faad: \(faad.stderrText)")
        // The lost audio is silence in the file: its length is still the capture time.
        let samples = try Self.decoded(output)
        #expect(abs(Double(samples.count) / 48_000 - 4) <= 0.05, "\(Double(samples.count) / 48_000) s for 4 s of capture")
        let silentWindows = stride(from: 0, to: samples.count - 480, by: 480).filter { start in
            samples[start..<start + 480].allSatisfy { abs($0) < 0.01 }
        }
        #expect(!silentWindows.isEmpty, "the lost stretch is silent")
    }

    @Test func devicesAreListedAndBadRequestsAreRefused() throws {
        let server = try Self.server()
        let folder = TemporaryDirectory()
        let listed = try Subprocess.run(Locations.avpipe, ["record", "--list-devices"], environment: server.environment)
        #expect(listed.status == 0)
        #expect(listed.stdoutText.split(separator: "\n").contains(Substring(PulseAudioServer.toneSourceName)), "\(listed.stdoutText)")

        let unknown = try Subprocess.run(Locations.avpipe, ["record", "--out", folder.file("x.m4a"), "--device", "nope"], environment: server.environment)
        #expect(unknown.status == 69)
        #expect(unknown.stderrText.contains(PulseAudioServer.toneSourceName), "the message names the devices: \(unknown.stderrText)")
        for arguments in [["--rate", "5"], ["--rate", "10000000"], ["--channels", "0"], ["--channels", "99"], ["--duration", "0"],
                          ["--buffer", "0"], ["--bitrate", "-3"]] {
            let refused = try Subprocess.run(Locations.avpipe, ["record", "--out", folder.file("x.m4a")] + arguments, environment: server.environment)
            #expect(refused.status == 64, "\(arguments): \(refused.stderrText)")
        }
        let noExtension = try Subprocess.run(Locations.avpipe, ["record", "--out", folder.file("x")], environment: server.environment)
        #expect(noExtension.status == 64)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty, "nothing was left behind")
    }

    /// No sound server at all: exit 69, and the message says how to list the devices.
    @Test func withoutAnyInputDeviceTheMessageSaysHowToListThem() throws {
        let folder = TemporaryDirectory()
        let environment = ["SDL_AUDIODRIVER": "pulseaudio", "PULSE_SERVER": "unix:\(folder.path)/nothing-here",
                           "XDG_RUNTIME_DIR": folder.path, "HOME": folder.path]
        let result = try Subprocess.run(Locations.avpipe, ["record", "--out", folder.file("x.m4a"), "--duration", "1"], environment: environment)
        #expect(result.status == 69, "\(result.stderrText)")
        #expect(result.stderrText.contains("--list-devices"), "\(result.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("x.m4a")))
    }
}

/// A default M4A recording is written as fragments (a killed one keeps all but the last), and once
/// complete it carries the gapless information a regular M4A does: FFmpeg's reading of its edit
/// list starts at 0 and lasts exactly --duration × rate samples (it lasted 134,144 samples for
/// 132,300, the priming and padding of whole AAC frames included), and `iTunSMPB` says the same.
@Suite(.serialized, .needsSoundServer) struct RecordGaplessTests {
    @Test func aCompletedFragmentedRecordingIsGapless() throws {
        let server = try RecordCommandTests.server()
        let folder = TemporaryDirectory()
        let output = folder.file("rec.m4a")
        let result = try Subprocess.run(Locations.avpipe, ["record", "--out", output, "--duration", "3", "--rate", "44100",
                                                           "--device", PulseAudioServer.toneSourceName], environment: server.environment)
        #expect(result.status == 0, "\(result.stderrText)")
        let probe = try Probe.run(output)
        #expect(probe.int("start_pts") == 0 && probe.int("duration_ts") == 132_300, "\(probe.streams)")
        let tag = try GaplessTests.formatTag(output, "iTunSMPB").split(separator: " ")
        #expect(tag.count == 12 && Int(tag[1], radix: 16) == 1024 && Int(tag[3], radix: 16) == 132_300, "\(tag)")
        let decode = try avpipe(["decode", output, "--channels", "1", "--format", "pcm", "--out", folder.file("back.pcm")])
        #expect(decode.status == 0 && fileSize(folder.file("back.pcm")) == 132_300 * 2, "\(decode.stderrText)")
        // FFmpeg 5.1 skips the priming and keeps the padding (as for any M4A): whole frames, never fewer.
        let ffmpegCount = try GaplessTests.monoFloats(output).count
        #expect(ffmpegCount >= 132_300 && ffmpegCount < 132_300 + 1024, "ffmpeg decodes \(ffmpegCount)")
    }

    /// A recording into a named pipe streams its fragments to the reader and is not read back
    /// and rewritten afterwards (a pipe cannot be), nor replaced by a regular file.
    @Test func aRecordingIntoAFIFOStreamsItsFragments() throws {
        let server = try RecordCommandTests.server()
        let folder = TemporaryDirectory()
        let fifo = folder.file("rec.m4a"), copy = folder.file("read.m4a")
        try StreamOutputTests.makeFIFO(fifo)
        let quoted = [Locations.avpipe, "record", "--out", fifo, "--duration", "2", "--device", PulseAudioServer.toneSourceName]
            .map { "'\($0)'" }.joined(separator: " ")
        let script = "cat '\(fifo)' > '\(copy)' & reader=$!; \(quoted); status=$?; wait $reader; exit $status"
        let result = try Subprocess.run("sh", ["-c", script], environment: server.environment, timeout: 60)
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(StreamOutputTests.fileType(fifo) == S_IFIFO, "the FIFO was replaced")
        let seconds = Double(try RecordCommandTests.decoded(copy).count) / 48_000
        #expect(abs(seconds - 2) <= 0.05 + 2048.0 / 48_000, "the reader got \(seconds) s")
    }
}
