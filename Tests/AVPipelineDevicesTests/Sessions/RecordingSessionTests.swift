import Foundation
import Synchronization
import Testing
import AVPipeline
import AVPipelineDevices
import TestSupport

/// `RecordingSession` through the library, on a real X server (a private Xvfb) and a real
/// PulseAudio microphone (a null sink's monitor with a 440 Hz tone): stopped from code or by its
/// duration, `run` returns normally and the file is complete (ffprobe, ffmpeg's decode), with what
/// `avpipe record` writes for the same options: the same tracks, codecs, picture layout and
/// top-level boxes. No timing is asserted: a thread stops the session once its own status says it
/// has recorded about 2 s, and durations are only checked to be positive and bounded.
@Suite(.serialized, .needsDisplay, .needsSoundServer) struct RecordingSessionTests {
    /// The status events a run sent, and its notices and warnings.
    final class Events: Sendable {
        let statuses = Mutex<[RecordingStatus]>([])
        let messages = Mutex<[String]>([])

        func take(_ event: RecordingEvent) {
            switch event {
            case .status(let status): statuses.withLock { $0.append(status) }
            case .notice(let text), .warning(let text): messages.withLock { $0.append(text) }
            }
        }
    }

    /// Stops `session` once its status says it has recorded `seconds` (or after ten minutes of
    /// wall time), from a thread of its own: the wait must not need the task pool, which the
    /// suite's parallel tests (blocked in subprocess waits) can hold for minutes on 2 cores — a
    /// status poll on the pool once waited 8 minutes there, and a stop after a fixed 3 s came
    /// before the session had opened its devices.
    static func stop(_ session: RecordingSession, whenRecorded seconds: Double, events: Events) {
        Thread.detachNewThread {
            let deadline = Date().addingTimeInterval(600)
            while (events.statuses.withLock { $0.last?.time.seconds ?? 0 }) < seconds, Date() < deadline {
                Thread.sleep(forTimeInterval: 0.05)
            }
            session.stop()
        }
    }

    /// What two recordings must share: per track, its kind, codec, picture size and layout or sound
    /// format, and the container.
    static func layout(_ path: String) throws -> [String] {
        let probe = try Probe.run(path)
        let tracks = probe.streams.map { stream in
            ["codec_type", "codec_name", "profile", "pix_fmt", "width", "height", "sample_rate", "channels"]
                .map { "\(stream[$0] ?? "-")" }.joined(separator: " ")
        }
        return tracks + ["\(probe.format["format_name"] ?? "-")"]
    }

    /// The types of an MP4's top-level boxes (fragmented: ftyp, moov, moof, mdat, …).
    static func topLevelBoxes(_ path: String) throws -> Set<String> {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var types = Set<String>(), offset = 0
        while offset + 8 <= bytes.count {
            var size = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            types.insert(String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self))
            if size == 1, offset + 16 <= bytes.count { size = bytes[offset + 8..<offset + 16].reduce(0) { $0 << 8 | Int($1) } }
            guard size >= 8 else { break }
            offset += size
        }
        return types
    }

    /// What ffprobe reports decoding every frame of the file: nothing when it is complete and
    /// sound (ffprobe, not ffmpeg: ffmpeg's null output complains about the capture's variable
    /// frame times, which are the recording's own).
    static func decodingErrors(_ path: String) throws -> String {
        let result = try Subprocess.run("ffprobe", ["-v", "error", "-count_frames", "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", path])
        let counts = result.stdoutText.split(separator: "\n").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard result.status == 0, !counts.isEmpty, counts.allSatisfy({ $0 > 0 }) else {
            return "exit \(result.status), frames \(result.stdoutText): \(result.stderrText)"
        }
        return result.stderrText
    }

    /// Runs `body` with the sound server's variables in the process's environment (SDL reads them
    /// when the microphone opens), then puts the environment back.
    static func withEnvironment<T>(_ variables: [String: String], _ body: () async throws -> T) async throws -> T {
        let previous = variables.keys.map { ($0, getenv($0).map { String(cString: $0) }) }
        for (name, value) in variables { setenv(name, value, 1) }
        defer {
            for (name, value) in previous {
                if let value { setenv(name, value, 1) } else { unsetenv(name) }
            }
        }
        return try await body()
    }

    /// The screen, stopped from code after about 2 s: `run` returns what the device captured, the
    /// MP4 holds H.264 4:2:0 for about that long, it decodes cleanly, and it is laid out as
    /// `avpipe record --screen --no-audio` lays out the same recording. (The screen with the
    /// microphone on one clock is `avpipe record --screen`'s session, which RecordScreenTests
    /// check through the binary: in this process, SDL's sound state is shared with the other
    /// suites' players, and one full run of the suite saw that microphone deliver nothing.)
    @Test func aScreenRecordingStoppedFromCodeIsCompleteAndAsTheCommandWritesIt() async throws {
        let display = try XvfbServer.started(width: 640, height: 360)
        let folder = TemporaryDirectory()
        let output = folder.file("session.mp4")
        let session = try RecordingSession(output: output, options: .init(microphone: nil, pictures: .init(device: .screen(display: display.display))))
        let events = Events()
        let summary = try await Self.withEnvironment([:]) {
            let running = Task { try await session.run(events: events.take) }
            Self.stop(session, whenRecorded: 2, events: events)
            return try await running.value
        }
        #expect((summary.pictures?.delivered ?? 0) > 0 && summary.sound == nil, "\(summary)")
        #expect(events.statuses.withLock { $0.contains { $0.droppedPictures != nil } })

        let probe = try Probe.run(output)
        let codecs = probe.streams.compactMap { $0["codec_name"] as? String }.sorted()
        #expect(codecs == ["h264"], "\(codecs)")
        let video = probe.streams.firstIndex { $0["codec_name"] as? String == "h264" } ?? 0
        #expect(probe.string("pix_fmt", stream: video) == "yuv420p")
        #expect(probe.int("width", stream: video) == 640 && probe.int("height", stream: video) == 360)
        let duration = try #require(probe.duration)
        #expect(duration > 0 && duration < 30, "\(duration) s")
        let errors = try Self.decodingErrors(output)
        #expect(errors.isEmpty, "\(errors)")

        let command = folder.file("command.mp4")
        let result = try Subprocess.run(Locations.avpipe, ["record", "--screen", display.display, "--no-audio", "--duration", "2", "--out", command],
                                        environment: display.environment)
        #expect(result.status == 0, "\(result.stderrText)")
        let layout = try Self.layout(output), commandLayout = try Self.layout(command)
        #expect(layout.contains { $0.hasPrefix("video h264 ") && $0.contains("yuv420p") } && layout == commandLayout, "\(layout)")
        // Written in fragments, as the command writes it: a killed run keeps all but the last.
        let boxes = try Self.topLevelBoxes(output), commandBoxes = try Self.topLevelBoxes(command)
        #expect(boxes.isSuperset(of: ["ftyp", "moov", "moof", "mdat"]) && boxes == commandBoxes, "\(boxes)")
    }

    /// Pictures alone, ended by the duration option: `run` returns, the Matroska file holds one
    /// H.264 4:2:0 track no longer than that, as `avpipe record --no-audio` writes it.
    @Test func aDurationStopsAScreenRecordingAsStopDoes() async throws {
        let display = try XvfbServer.started(width: 320, height: 240)
        let folder = TemporaryDirectory()
        let output = folder.file("session.mkv")
        let session = try RecordingSession(output: output, options: .init(microphone: nil, pictures: .init(device: .screen(display: display.display)),
                                                                          duration: MediaTime(seconds: 1.5)))
        let summary = try await session.run()
        #expect(summary.sound == nil && (summary.pictures?.delivered ?? 0) > 0, "\(summary)")
        let probe = try Probe.run(output)
        #expect(probe.streams.count == 1 && probe.string("codec_name") == "h264" && probe.string("pix_fmt") == "yuv420p")
        let duration = try #require(probe.duration)
        // Pictures carry their capture times, and the capture ends at 1.5 s of them: never much
        // longer (how much shorter depends on how late a loaded machine grabbed the first ones).
        #expect(duration > 0 && duration < 2, "\(duration) s")
        let errors = try Self.decodingErrors(output)
        #expect(errors.isEmpty, "\(errors)")

        let command = folder.file("command.mkv")
        let result = try Subprocess.run(Locations.avpipe, ["record", "--screen", display.display, "--no-audio", "--duration", "1.5", "--out", command],
                                        environment: display.environment)
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(try Self.layout(output) == Self.layout(command))
    }

    /// The microphone alone, stopped from code: a complete M4A of AAC (recorded in fragments, made
    /// whole at the end), as `avpipe record` writes one.
    @Test func aMicrophoneRecordingStoppedFromCodeIsACompleteM4A() async throws {
        let sound = try PulseAudioServer.started(toneSource: 440)
        let folder = TemporaryDirectory()
        let output = folder.file("session.m4a")
        let session = try RecordingSession(output: output, options: .init())
        let events = Events()
        let summary = try await Self.withEnvironment(sound.environment.filter { $0.key != "HOME" }) {
            let running = Task { try await session.run(events: events.take) }
            Self.stop(session, whenRecorded: 2, events: events)
            return try await running.value
        }
        #expect(summary.pictures == nil && (summary.soundDuration?.seconds ?? 0) > 0, "\(summary)")
        let probe = try Probe.run(output)
        #expect(probe.streams.count == 1 && probe.string("codec_name") == "aac")
        let duration = try #require(probe.duration)
        #expect(duration > 0 && duration < 30, "\(duration) s")
        let errors = try Self.decodingErrors(output)
        #expect(errors.isEmpty, "\(errors)")

        let command = folder.file("command.m4a")
        let result = try Subprocess.run(Locations.avpipe, ["record", "--duration", "2", "--out", command], environment: sound.environment)
        #expect(result.status == 0, "\(result.stderrText)")
        let layout = try Self.layout(output), commandLayout = try Self.layout(command)
        #expect(layout.contains { $0.hasPrefix("audio aac ") } && layout == commandLayout, "\(layout)")
        let boxes = try Self.topLevelBoxes(output), commandBoxes = try Self.topLevelBoxes(command)
        #expect(boxes.isSuperset(of: ["ftyp", "moov", "mdat"]) && boxes == commandBoxes, "\(boxes)")
    }

    /// A stop before `run` opens anything: `run` returns at once and writes nothing.
    @Test func aSessionStoppedBeforeItRunsRecordsNothing() async throws {
        let folder = TemporaryDirectory()
        let output = folder.file("never.m4a")
        let session = try RecordingSession(output: output, options: .init())
        session.stop()
        let summary = try await session.run()
        #expect(summary.sound == nil && summary.pictures == nil)
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    /// Pictures go only into containers that hold H.264 beside AAC; nothing at all is refused.
    @Test func impossibleRecordingsAreRefusedBeforeAnythingOpens() {
        #expect(throws: AVPipelineError.self) {
            try RecordingSession(output: "x.wav", options: .init(pictures: .init(device: .screen(display: ":0"))))
        }
        #expect(throws: AVPipelineError.self) { try RecordingSession(output: "x.m4a", options: .init(microphone: nil)) }
        #expect(throws: AVPipelineError.self) { try RecordingSession(output: "x.unknown", options: .init()) }
    }

    /// `RecordingSession`'s doc-comment example, compiled (never run: it records ":0" for 10 s).
    static func documentationExample() async throws {
        let session = try RecordingSession(output: "screen.mp4", options: .init(
            microphone: nil, pictures: .init(device: .screen(display: ":0")), duration: .seconds(10)))
        let summary = try await session.run { event in print(event) }
        _ = summary
    }
}
