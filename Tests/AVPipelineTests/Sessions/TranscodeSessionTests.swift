import Foundation
import Synchronization
import Testing
import TestSupport
import AVPipeline

/// `TranscodeSession` is what `avpipe encode` runs: the same job through the library and through
/// the binary gives the same bytes; its progress reaches 1; `stop()` ends the run with a complete
/// file; rotation and track languages are carried. Checked with ffprobe and ffmpeg.
@Suite struct TranscodeSessionTests {
    /// The events a run sent, in order.
    final class Events: Sendable {
        private let events = Mutex<[TranscodeEvent]>([])
        func add(_ event: TranscodeEvent) { events.withLock { $0.append(event) } }
        var progress: [TranscodeProgress] {
            events.withLock { $0.compactMap { if case .progress(let progress) = $0 { progress } else { nil } } }
        }
    }

    static func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    /// One-threaded, fast x264 settings, so two runs give the same bytes.
    static var x264: TranscodeSession.Video {
        .encode(VideoEncoderOptions(preset: "ultrafast", threads: 1), codec: nil)
    }

    @Test func aRotatedMovieToMP4IsTheCLIsBytes() async throws {
        let folder = TemporaryDirectory()
        let plain = try DemuxMedia.movie(folder.file("plain.mp4"), seconds: 2, size: "160x90",
                                         extraArguments: ["-metadata:s:a:0", "language=fra"])
        try MediaFactory.rotated(plain, degrees: 90, to: folder.file("source.mp4"))
        let source = folder.file("source.mp4")
        var options = TranscodeSession.Options()
        options.video = Self.x264
        let events = Events()
        let summary = try await TranscodeSession(input: source, output: folder.file("library.mp4"), options: options).run(events: events.add)
        #expect(!summary.stopped)
        let run = try avpipe(["encode", "--in", source, "--out", folder.file("cli.mp4"), "--preset", "ultrafast", "--threads", "1"])
        #expect(run.status == 0, "\(run.stderrText)")
        #expect(try Self.bytes(folder.file("library.mp4")) == Self.bytes(folder.file("cli.mp4")))

        let probe = try Probe.run(folder.file("library.mp4"))
        let video = probe.streams.first { $0["codec_type"] as? String == "video" }
        let audio = probe.streams.first { $0["codec_type"] as? String == "audio" }
        let rotation = (video?["side_data_list"] as? [[String: Any]])?.compactMap { $0["rotation"] as? Int }.first
        #expect(rotation.map(abs) == 90, "the display matrix is carried: \(String(describing: video))")
        #expect((audio?["tags"] as? [String: String])?["language"] == "fra")
        #expect(audio?["codec_name"] as? String == "aac")

        let progress = events.progress
        #expect(progress.last?.fraction == 1, "\(progress)")
        #expect(progress.allSatisfy { ($0.fraction ?? 0) >= 0 && ($0.fraction ?? 0) <= 1 })
    }

    @Test func wavToAACIsTheCLIsBytes() async throws {
        let folder = TemporaryDirectory()
        let source = try MediaFactory.tone(folder.file("tone.wav"), seconds: 3)
        var options = TranscodeSession.Options()
        options.audio.bitRate = 96_000
        let events = Events()
        try await TranscodeSession(input: source, output: folder.file("library.aac"), options: options).run(events: events.add)
        let run = try avpipe(["encode", "--in", source, "--out", folder.file("cli.aac"), "--bitrate", "96k"])
        #expect(run.status == 0, "\(run.stderrText)")
        #expect(try Self.bytes(folder.file("library.aac")) == Self.bytes(folder.file("cli.aac")))
        #expect(try Probe.run(folder.file("library.aac")).string("codec_name") == "aac")
        #expect(events.progress.last?.fraction == 1)
    }

    @Test func hlsWithTwoSecondSegmentsStartsEachOnAKeyframe() async throws {
        let folder = TemporaryDirectory()
        let source = try DemuxMedia.movie(folder.file("source.mp4"), seconds: 7, size: "160x90")
        try FileManager.default.createDirectory(atPath: folder.file("library"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder.file("cli"), withIntermediateDirectories: true)
        var options = TranscodeSession.Options()
        options.video = Self.x264
        options.hls.segmentDuration = .seconds(2)
        try await TranscodeSession(input: source, output: folder.file("library/index.m3u8"), options: options).run()
        let run = try avpipe(["encode", "--in", source, "--out", folder.file("cli/index.m3u8"), "--segment", "2",
                              "--preset", "ultrafast", "--threads", "1"])
        #expect(run.status == 0, "\(run.stderrText)")
        let segments = try FileManager.default.contentsOfDirectory(atPath: folder.file("library")).filter { $0.hasSuffix(".ts") }.sorted()
        #expect(segments.count >= 3, "7 s in 2 s segments: \(segments)")
        for name in segments + ["index.m3u8"] {
            #expect(try Self.bytes(folder.file("library/\(name)")) == Self.bytes(folder.file("cli/\(name)")), "\(name)")
        }
        for name in segments {
            let first = try Probe.packets(folder.file("library/\(name)"), stream: "v:0").first
            #expect((first?["flags"] as? String)?.hasPrefix("K") == true, "\(name) starts on a keyframe: \(String(describing: first))")
        }
    }

    @Test func stopEndsTheRunWithAPlayableFile() async throws {
        let folder = TemporaryDirectory()
        let source = try DemuxMedia.movie(folder.file("source.mp4"), seconds: 30, size: "160x90")
        var options = TranscodeSession.Options()
        options.video = Self.x264
        options.realtime = true  // paced, so the run is still going when it is stopped
        let session = try TranscodeSession(input: source, output: folder.file("stopped.mp4"), options: options)
        let summary = try await session.run { event in
            if case .progress(let progress) = event, progress.time.seconds >= 1 { session.stop() }
        }
        #expect(summary.stopped)
        let probe = try Probe.run(folder.file("stopped.mp4"))
        #expect((probe.duration ?? 0) > 0.5 && (probe.duration ?? 30) < 29, "\(String(describing: probe.duration))")
        #expect(probe.streams.count == 2)
        let decode = try Subprocess.run("ffmpeg", ["-v", "error", "-i", folder.file("stopped.mp4"), "-f", "null", "-"])
        #expect(decode.status == 0 && decode.stderrText.isEmpty, "\(decode.stderrText)")
    }

    /// A copied video ends at the stop as the encoded audio does.
    @Test func stopEndsACopiedVideoToo() async throws {
        let folder = TemporaryDirectory()
        let source = try DemuxMedia.movie(folder.file("source.mp4"), seconds: 30, size: "160x90")
        var options = TranscodeSession.Options()
        options.video = .copy
        options.realtime = true
        let session = try TranscodeSession(input: source, output: folder.file("stopped.mkv"), options: options)
        let summary = try await session.run { event in
            if case .progress(let progress) = event, progress.time.seconds >= 1 { session.stop() }
        }
        #expect(summary.stopped)
        let probe = try Probe.run(folder.file("stopped.mkv"))
        #expect((probe.duration ?? 30) < 29, "\(String(describing: probe.duration))")
        #expect(probe.streams.map { $0["codec_name"] as? String } == ["h264", "aac"])
    }

    @Test func theContainerComesFromTheExtension() throws {
        #expect(TranscodeSession.container(of: "a.webm") == .webm)
        #expect(TranscodeSession.container(of: "a.m4v") == nil)
        #expect(TranscodeSession.container(of: "-") == .adts)
        #expect(throws: AVPipelineError.self) { try TranscodeSession(input: "a.mp4", output: "b.xyz") }
    }
}
