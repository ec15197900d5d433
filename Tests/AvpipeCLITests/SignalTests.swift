import Foundation
import Testing
import TestSupport

/// Issue #7.2: SIGINT/SIGTERM sent mid-run to every long-running subcommand. avpipe must exit
/// 130/143 with the one line "interrupted", promptly, and leave no temporary output — except a
/// fragmented recording, which is kept as a valid file of what was written.
///
/// Synchronous on purpose: the polls must not wait for a cooperative-pool thread (other tests
/// block those in `waitUntilExit`).
@Suite struct SignalTests {
    struct Job: Sendable, CustomTestStringConvertible {
        let name: String
        /// Makes the input(s) in the folder; returns the arguments.
        let arrange: @Sendable (TemporaryDirectory) throws -> [String]
        /// The output a stop keeps (fragmented mode), or nil when a stop must leave nothing.
        var kept: String? = nil
        /// Extra environment (play: SDL's dummy audio driver, a device without a sound server).
        var environment: [String: String] = [:]
        /// Whether the run writes a file whose appearance shows it is under way (play writes none).
        var writes = true
        var testDescription: String { name }
    }

    static let jobs: [Job] = [
        Job(name: "encode --realtime") { d in
            ["encode", "--in", try BadInputMatrix.copy(SampleMedia.bigWAV, to: d, as: "in.wav"), "--out", d.file("o.aac"), "--realtime"]
        },
        Job(name: "demux (a large lossless movie)") { d in
            ["demux", try BadInputMatrix.copy(SampleMedia.hugeMovie, to: d, as: "in.mp4"), "--audio", d.file("o.aac"), "--video", d.file("o.h264")]
        },
        Job(name: "mux --realtime") { d in
            ["mux", "--video", try BadInputMatrix.copy(SampleMedia.bigMovie, to: d, as: "in.mp4"), "--out", d.file("o.mp4"), "--realtime"]
        },
        Job(name: "remux --realtime") { d in
            ["remux", try BadInputMatrix.copy(SampleMedia.bigMovie, to: d, as: "in.mp4"), d.file("o.mov"), "--realtime"]
        },
        Job(name: "remux --fragmented --realtime", arrange: { d in
            ["remux", try BadInputMatrix.copy(SampleMedia.bigMovie, to: d, as: "in.mp4"), d.file("o.mp4"), "--fragmented", "--realtime"]
        }, kept: "o.mp4"),
        Job(name: "mux --fragmented --realtime", arrange: { d in
            ["mux", "--audio", try BadInputMatrix.copy(SampleMedia.bigMovie, to: d, as: "in.mp4"), "--out", d.file("o.m4a"),
             "--fragmented", "--realtime"]
        }, kept: "o.m4a"),
        Job(name: "decode (a minute of AAC, upsampled)") { d in
            ["decode", try BadInputMatrix.copy(SampleMedia.longAAC, to: d, as: "in.aac"), "--out", d.file("o.wav"),
             "--rate", "96000", "--sample-format", "flt", "--channels", "2"]
        },
        Job(name: "play (dummy audio device)", arrange: { d in
            ["play", try BadInputMatrix.copy(SampleMedia.bigMovie, to: d, as: "in.mp4")]
        }, environment: ["SDL_AUDIODRIVER": "dummy", "DISPLAY": "", "WAYLAND_DISPLAY": ""], writes: false),
    ]

    @Test(arguments: jobs, [SIGINT, SIGTERM])
    func aStopSignalEndsTheRunCleanly(_ job: Job, signal: Int32) throws {
        let folder = TemporaryDirectory("avpipe-signal")
        let arguments = try job.arrange(folder)
        let inputs = folder.contents()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Locations.avpipe)
        process.arguments = arguments
        // LeakSanitizer's exit-time scan (StopTheWorld) was seen to deadlock in a child stopped by
        // a signal, spinning forever; leaks of interrupted runs are checked by scripts/leakcheck's
        // interrupted jobs under valgrind instead. AddressSanitizer's own checks stay on.
        var environment = ProcessInfo.processInfo.environment.merging(job.environment) { $1 }
        if let asan = environment["ASAN_OPTIONS"] { environment["ASAN_OPTIONS"] = asan + ":detect_leaks=0" }
        process.environment = environment
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()

        // Signal once the run is under way: its unnamed (or hidden temporary) output is open (or,
        // fragmented, the kept file holds its first complete fragment).
        var started = false
        for _ in 0..<1_000 where process.isRunning && !started {
            usleep(10_000)
            if !job.writes {
                usleep(500_000)  // nothing to watch for: let it play half a second
                started = true
            } else if let kept = job.kept {
                started = MuxCommandTests.completeBoxes(folder.file(kept)).contains("mdat")
            } else {
                started = isWritingOutput(pid: process.processIdentifier, in: folder.path)
            }
        }
        try #require(started && process.isRunning, "the run ended (or never started) before the signal: \(folder.contents())")
        let sent = ContinuousClock.now
        kill(process.processIdentifier, signal)
        // A run that does not stop fails the test instead of hanging the suite.
        let pid = process.processIdentifier
        let killedByWatchdog = LockedBox(false), reaped = LockedBox(false)
        DispatchQueue.global().asyncAfter(deadline: .now() + 30) {
            if !reaped.get() {
                killedByWatchdog.set(true)
                kill(pid, SIGKILL)
            }
        }
        defer { reaped.set(true) }
        let stderr = errors.fileHandleForReading.readDataToEndOfFile()  // EOF when the process is gone
        let latency = ContinuousClock.now - sent
        process.waitUntilExit()

        try #require(!killedByWatchdog.get(), "\(job.name) was still running 30 s after signal \(signal)")
        print("\(job.name), signal \(signal): stopped \(latency) after the signal")
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 128 + signal)
        let messages = String(decoding: stderr, as: UTF8.self).split(separator: "\n").filter { !$0.hasPrefix("avpipe: notice: ") }
        #expect(messages == ["avpipe: error: interrupted"])
        // The goal is 0.5 s (scripts/bench's to measure); the bound only tells a stop from a run
        // to its end or the 30 s watchdog, because suites and sanitizers load the machine.
        #expect(latency < .seconds(10), "took \(latency) to stop")
        if let kept = job.kept {
            #expect(folder.contents() == (inputs + [kept]).sorted())
            let probe = try Probe.run(folder.file(kept))
            #expect((probe.duration ?? 0) > 0.5, "the kept recording holds what was written")
            let check = try Subprocess.run("ffmpeg", ["-v", "error", "-i", folder.file(kept), "-f", "null", "-"])
            #expect(check.status == 0 && check.stderrText.isEmpty, "ffmpeg decodes the kept file without errors: \(check.stderrText)")
        } else {
            #expect(folder.contents() == inputs, "temporary output left behind")
        }
    }

    /// A read blocked on an input that stalls (a pipe whose writer went quiet) never sees the
    /// cancellation; the stop must still come promptly and remove the temporary output.
    @Test(arguments: [SIGINT, SIGTERM], [true, false])
    func aRunBlockedOnAStalledPipeStillStops(signal: Int32, encoding: Bool) throws {
        let folder = TemporaryDirectory("avpipe-signal")
        let full = try BadInputMatrix.copy(SampleMedia.bigWAV, to: folder, as: "full.wav")
        let fifo = folder.file("pipe.wav")
        #expect(mkfifo(fifo, 0o600) == 0)
        // The writer sends 7 s of the WAV (enough for the encode to start its output: FFmpeg 7.1 reads
        // 5 s of a piped WAV before it says what the stream holds, 5.1 less), then stalls.
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/bin/sh")
        writer.arguments = ["-c", "{ head -c \(encoding ? 1_200_000 : 0) '\(full)'; exec sleep 60; } > '\(fifo)'"]
        try writer.run()
        defer { writer.terminate(); writer.waitUntilExit() }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: Locations.avpipe)
        process.arguments = encoding ? ["encode", "--in", fifo, "--out", folder.file("o.aac")] : ["probe", fifo]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        var temporary = false
        for _ in 0..<500 where encoding && !temporary {
            usleep(10_000)
            temporary = isWritingOutput(pid: process.processIdentifier, in: folder.path)
        }
        if encoding { try #require(temporary, "the encode never started its output: \(folder.contents())") }
        usleep(300_000)  // by now the 7 s are consumed and the read is blocked
        #expect(process.isRunning)
        let sent = ContinuousClock.now
        kill(process.processIdentifier, signal)
        let stderr = errors.fileHandleForReading.readDataToEndOfFile()
        let latency = ContinuousClock.now - sent
        process.waitUntilExit()
        print("\(encoding ? "encode" : "probe") blocked on a pipe, signal \(signal): stopped \(latency) after the signal")
        #expect(process.terminationReason == .exit && process.terminationStatus == 128 + signal)
        #expect(String(decoding: stderr, as: UTF8.self) == "avpipe: error: interrupted\n")
        // A prompt stop vs a hang; how prompt is not for a loaded machine to judge.
        #expect(latency < .seconds(10), "took \(latency) to stop")
        #expect(folder.contents() == ["full.wav", "pipe.wav"], "temporary output left behind")
    }

    /// On a terminal (a pty from `script`), an interrupted run ends its progress line before the
    /// error line, and leaves the terminal settings as it found them.
    @Test(arguments: ["encode", "play"])
    func anInterruptedRunLeavesTheTerminalAsItWas(_ command: String) throws {
        let folder = TemporaryDirectory("avpipe-signal")
        let input = try BadInputMatrix.copy(SampleMedia.bigWAV, to: folder, as: "in.wav")
        let avpipe = command == "encode"
            ? "'\(Locations.avpipe)' encode --in '\(input)' --out '\(folder.file("o.aac"))' --realtime"
            : "env SDL_AUDIODRIVER=dummy DISPLAY= WAYLAND_DISPLAY= '\(Locations.avpipe)' play '\(input)'"
        let script = "stty -g; timeout --preserve-status -s INT 1 \(avpipe); echo \"status=$?\"; stty -g"
        let result = try Subprocess.run("script", ["-qefc", script, "/dev/null"])
        let screen = result.stdoutText
        let lines = screen.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(screen.contains(command == "encode" ? "× real time" : "0:00"), "progress was drawn: \(screen.debugDescription)")
        #expect(screen.contains("\r\nstatus=130"), "\(screen)")
        #expect(lines.contains { $0.hasPrefix("avpipe: error: interrupted") }, "the error starts a line of its own: \(screen.debugDescription)")
        #expect(lines.count >= 3 && lines.first == lines.last, "stty settings before and after: \(lines)")
        #expect(folder.contents() == ["in.wav"])
    }
}
