import Foundation
import Testing
import TestSupport

/// The Examples package (Examples/): six programs built against the library by path, as a user's
/// own package would be, each run on its job and checked from outside with the oracles the CLI's
/// own tests use (ffprobe, ffmpeg's decode, nginx-rtmp's recordings, a private X server).
@Suite(.serialized) struct ExamplesTests {
    /// Where the built programs are, and why `transcode` is not among them (if it is not).
    struct Build: Sendable {
        let binPath: String
        let transcodeMissing: String?
    }

    /// Builds the package once per test run (the library again, in Examples/.build: a few minutes
    /// on a fresh checkout, nothing afterwards; CI's own build step then finds it done).
    static let build: Result<Build, TestFailure> = {
        let package = Locations.packageRoot + "/Examples"
        func swiftBuild(_ extra: [String]) -> ProcessResult? {
            try? Subprocess.run("swift", ["build", "--package-path", package] + extra, timeout: 3600)
        }
        guard let all = swiftBuild([]) else { return .failure(TestFailure("swift build did not run")) }
        guard let bin = swiftBuild(["--show-bin-path"])?.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) else {
            return .failure(TestFailure("swift build --show-bin-path did not run"))
        }
        if all.status == 0 { return .success(Build(binPath: bin, transcodeMissing: nil)) }
        let log = all.stdoutText + all.stderrText
        // Until the library has TranscodeSession (issue 39's sessions), only `transcode` cannot
        // build: the others are built one by one, and its test says why it is skipped.
        guard log.contains("cannot find 'TranscodeSession' in scope") else {
            return .failure(TestFailure("swift build --package-path Examples failed:\n\(log.suffix(4000))"))
        }
        for program in ["draw", "hls", "record-screen", "push", "play"] {
            guard let one = swiftBuild(["--product", program]), one.status == 0 else {
                return .failure(TestFailure("the example \(program) does not build"))
            }
        }
        return .success(Build(binPath: bin, transcodeMissing: "the library has no TranscodeSession yet"))
    }()

    /// The built program `name`.
    static func program(_ name: String) throws -> String {
        "\(try build.get().binPath)/\(name)"
    }

    /// Runs example `name`; a hang fails the test rather than stalling the suite.
    static func run(_ name: String, _ arguments: [String], environment: [String: String]? = nil) throws -> ProcessResult {
        try Subprocess.run(program(name), arguments, environment: environment, timeout: 120)
    }

    /// Decoded pictures of the first video stream of `path`.
    static func pictureCount(_ path: String) throws -> Int? {
        let probe = try Subprocess.run("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0",
                                                   "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", path])
        return Int(probe.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test func drawMakesThreeSecondsOfAMovingSquareAndA440HzTone() throws {
        let folder = TemporaryDirectory()
        let output = folder.file("drawn.mp4")
        let result = try Self.run("draw", [output])
        #expect(result.status == 0, "\(result.stderrText)")
        let probe = try Probe.run(output)
        let kinds = probe.streams.compactMap { $0["codec_name"] as? String }.sorted()
        #expect(kinds == ["aac", "h264"], "\(probe.streams)")
        let video = try #require(probe.streams.firstIndex { $0["codec_name"] as? String == "h264" })
        #expect(probe.string("avg_frame_rate", stream: video) == "30/1")
        #expect(try Self.pictureCount(output) == 90)
        #expect(abs((probe.duration ?? 0) - 3) < 0.1, "duration \(probe.duration ?? -1)")
        // The pictures differ: the square moves.
        let hashes = try Subprocess.run("ffmpeg", ["-v", "error", "-i", output, "-map", "0:v:0", "-f", "framemd5", "-"])
        #expect(Set(hashes.stdoutText.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last }).count == 90)
        // The sound, as ffmpeg decodes it: 3 s of 440 Hz.
        let decoded = try Subprocess.run("ffmpeg", ["-v", "error", "-i", output, "-map", "0:a:0", "-f", "s16le", "-ac", "1", "-ar", "48000", "-"])
        let samples = SignalAnalysis.deinterleaveS16([UInt8](decoded.stdout), channels: 1)[0]
        #expect(abs(samples.count - 144_000) <= 1024, "\(samples.count) samples")
        #expect(abs(SignalAnalysis.dominantFrequency(samples, sampleRate: 48_000) - 440) < 5)
        #expect(SignalAnalysis.rms(samples) > 0.2)
    }

    @Test func hlsCutsTwoSecondSegmentsOfA320WidePictureEachOnAKeyframe() throws {
        let folder = TemporaryDirectory()
        // 8 s of 640×360 whose own keyframes are 5 s apart: only the encoder's can start 2 s segments.
        let input = try DemuxMedia.movie(folder.file("in.mp4"), seconds: 8, size: "640x360",
                                         videoArguments: ["-g", "125", "-keyint_min", "125", "-sc_threshold", "0"])
        try FileManager.default.createDirectory(atPath: folder.file("site"), withIntermediateDirectories: false)
        let result = try Self.run("hls", [input, folder.file("site")])
        #expect(result.status == 0, "\(result.stderrText)")
        let entries = try HLSTests.playlistEntries(folder.file("site/index.m3u8"))
        #expect(entries.count == 4, "\(entries)")
        for entry in entries {
            let segment = folder.file("site/\(entry.uri)")
            let measured = try HLSTests.measure(segment, initSegment: nil, in: folder)
            #expect(measured.keyframeFirst, "\(entry.uri) starts with a keyframe")
            #expect(abs(measured.duration - 2) < 0.05, "\(entry.uri) lasts \(measured.duration) s")
            let probe = try Probe.run(segment)
            let video = try #require(probe.streams.firstIndex { $0["codec_type"] as? String == "video" })
            #expect(probe.int("width", stream: video) == 320 && probe.int("height", stream: video) == 180, "\(probe.streams)")
        }
        #expect(try HLSTests.decodedSamples(folder.file("site/index.m3u8")) > 7 * 44_100, "the sound is there too")
    }

    @Test(.needsNginx) func pushSendsInRealTimeAndStopsCleanlyAfterItsSeconds() throws {
        let server = try NginxServer.started()
        let folder = TemporaryDirectory()
        let movie = try DemuxMedia.movie(folder.file("m.mp4"), seconds: 10)
        let result = try Self.run("push", [movie, server.rtmpURL("record", "example"), "3"])
        #expect(result.status == 0, "\(result.stderrText)")
        // "pushed N s of …": what was sent before the stop, in real time: about 3 s, never the whole 10.
        let pushed = result.stdoutText.split(separator: " ").dropFirst().first.flatMap { Double($0) }
        #expect(pushed.map { $0 > 1 && $0 < 9 } == true, "\(result.stdoutText)")
        server.stop()
        // What the server recorded decodes, and is the start of the movie: paced in real time,
        // 3 s cannot carry all of its 10 s (unpaced, the whole file arrives at once).
        let recorded = server.recordings + "/example.flv"
        let decode = try Subprocess.run("ffmpeg", ["-v", "error", "-i", recorded, "-f", "null", "-"])
        #expect(decode.status == 0, "\(decode.stderrText)")
        let probe = try Probe.run(recorded)
        #expect(Set(probe.streams.compactMap { $0["codec_name"] as? String }) == ["h264", "aac"], "\(probe.streams)")
        let pictures = try #require(try Self.pictureCount(recorded))
        #expect(pictures > 0 && pictures < 200, "\(pictures) of 250 pictures")
    }

    @Test(.needsDisplay) func recordScreenRecords420At30PicturesASecond() throws {
        let display = try XvfbServer.started(width: 640, height: 360)
        let folder = TemporaryDirectory()
        let output = folder.file("screen.mp4")
        let result = try Self.run("record-screen", ["2", output], environment: display.environment)
        #expect(result.status == 0, "\(result.stderrText)")
        let probe = try Probe.run(output)
        #expect(probe.streams.count == 1, "no sound: \(probe.streams)")
        #expect(probe.string("codec_name") == "h264" && probe.string("pix_fmt") == "yuv420p", "\(probe.streams)")
        #expect(probe.int("width") == 640 && probe.int("height") == 360)
        // 30 a second: pictures keep the times they were captured at, so the typical step between
        // them (the median, which a stall on a loaded machine does not move) is a 30th of a second.
        let times = try Probe.packets(output, stream: "v:0").compactMap { ($0["pts_time"] as? String).flatMap(Double.init) }.sorted()
        let steps = zip(times.dropFirst(), times).map { $0 - $1 }.sorted()
        #expect(!steps.isEmpty && abs(steps[steps.count / 2] - 1.0 / 30) < 0.003, "steps \(steps)")
        // About 60 pictures; fewer only if a loaded machine made the encoder drop some (counted
        // and reported, never queued without bound), never more than 2 s at 30 fps hold.
        let pictures = try #require(try Self.pictureCount(output))
        #expect((40...66).contains(pictures), "\(pictures) pictures in 2 s at 30 fps")
    }

    @Test func playPlaysSeeksStopsAndPrintsItsStatistics() throws {
        let folder = TemporaryDirectory()
        let movie = try DemuxMedia.movie(folder.file("m.mp4"), seconds: 8)
        // SDL's dummy drivers: a device and a window that exist nowhere, as PlayCommandTests use.
        let environment = ["SDL_AUDIODRIVER": "dummy", "SDL_VIDEODRIVER": "dummy", "DISPLAY": "", "WAYLAND_DISPLAY": ""]
        let result = try Self.run("play", [movie], environment: environment)
        #expect(result.status == 0, "\(result.stderrText)")
        let last = result.stdoutText.split(separator: "\n").last.map(String.init) ?? ""
        #expect(last.contains("audio underruns") || last.contains("pictures shown"), "\(result.stdoutText)")
    }

    @Test func transcodeGivesWhatEncodeGives() throws {
        if let missing = try Self.build.get().transcodeMissing {
            print("notice: skipping the transcode example: \(missing)")
            return
        }
        let folder = TemporaryDirectory()
        let input = try DemuxMedia.movie(folder.file("in.mp4"), seconds: 2,
                                         extraArguments: ["-metadata:s:a:0", "language=fra", "-metadata", "title=Examples"])
        let ours = folder.file("example.mkv"), cli = folder.file("cli.mkv")
        let result = try Self.run("transcode", [input, ours])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(try avpipe(["encode", "--in", input, "--out", cli]).status == 0)
        func described(_ path: String) throws -> [String] {
            let probe = try Probe.run(path)
            let title = (probe.format["tags"] as? [String: Any])?["title"] as? String ?? "-"
            return [title] + probe.streams.map { stream in
                let tags = stream["tags"] as? [String: Any]
                return ["codec_type", "codec_name", "width", "height", "sample_rate", "start_time"]
                    .map { "\(stream[$0] ?? "-")" }.joined(separator: " ") + " \(tags?["language"] ?? "-")"
            }
        }
        #expect(try described(ours) == described(cli))
        #expect(try Self.pictureCount(ours) == Self.pictureCount(cli))
    }
}
