import Foundation
import Testing
import TestSupport
import AVPipeline

/// The README's library examples, compiled here so they cannot rot, and run on generated media.
/// Serialized: the examples use relative paths, so each run changes the working directory.
@Suite(.serialized) struct ReadmeExampleTests {
    static func readmeExample() async throws {
        let capture = try FileCapture(path: "pcm.wav")              // PCM in 1024-frame chunks, like a microphone
        let encoder = try capture.encodeAAC(.init(bitRate: 96_000))  // AAC-LC packets
        try await encoder.writeADTS(to: "test.aac")                  // appears only once complete
    }

    static func readmeVideoExample() async throws {
        // Pictures: decode, seek exactly, trim.
        let demuxer = try Demuxer(path: "movie.mp4")
        let pictures = try demuxer.videoTrack().decodeVideo()        // VideoFrame: refcounted AVFrame, never copied
        try demuxer.seek(to: .seconds(12), mode: .exact)             // or .keyframe
        try await pictures.ending(at: .seconds(15)).writeVideoFrames(to: "clip.y4m")
    }

    static func readmeVideoEncodeExample() async throws {
        // Pictures → H.264: every picture once at its own time, delayed pictures flushed at the end.
        let h264 = try Demuxer(path: "movie.mkv").videoTrack().decodeVideo()
            .encodeVideo(.init(preset: "veryfast", tune: "zerolatency", crf: 23, keyframePictureInterval: 50))
        try await h264.writeRawVideo(to: "movie.h264")              // Annex B, parameter sets before every keyframe
    }

    @Test func readmeShowsTheCompiledVideoEncodeExample() throws {
        let readme = try String(contentsOfFile: Locations.packageRoot + "/README.md", encoding: .utf8)
        let source = try String(contentsOfFile: #filePath, encoding: .utf8)
        let marker = "// Pictures → H.264: every picture once at its own time"
        let body = Self.lines(of: source, after: marker, until: "    }")
        #expect(body.count == 3)
        #expect(body == Self.lines(of: readme, after: marker, until: "```"), "README video encode example and readmeVideoEncodeExample() differ")
    }

    /// The example's stream holds every picture of the input, a keyframe every 50 (ffprobe's count).
    @Test func readmeVideoEncodeExampleRuns() async throws {
        let folder = TemporaryDirectory()
        try DemuxMedia.movie(folder.file("movie.mkv"), seconds: 3, audio: false)
        let previous = FileManager.default.currentDirectoryPath
        _ = FileManager.default.changeCurrentDirectoryPath(folder.path)
        defer { _ = FileManager.default.changeCurrentDirectoryPath(previous) }
        try await Self.readmeVideoEncodeExample()
        let packets = try Probe.packets(folder.file("movie.h264"), stream: "v:0")
        #expect(packets.count == 75)
        #expect(packets.filter { ($0["flags"] as? String)?.hasPrefix("K") == true }.count == 2)
    }

    @Test func readmeShowsTheCompiledVideoExample() throws {
        let readme = try String(contentsOfFile: Locations.packageRoot + "/README.md", encoding: .utf8)
        let source = try String(contentsOfFile: #filePath, encoding: .utf8)
        let marker = "// Pictures: decode, seek exactly, trim."
        let body = Self.lines(of: source, after: marker, until: "    }")
        #expect(body.count == 4)
        #expect(body == Self.lines(of: readme, after: marker, until: "```"), "README video example and readmeVideoExample() differ")
    }

    @Test func readmeVideoExampleRuns() async throws {
        let folder = TemporaryDirectory()
        try DemuxMedia.movie(folder.file("movie.mp4"), seconds: 16, videoArguments: ["-g", "50"])
        let previous = FileManager.default.currentDirectoryPath
        _ = FileManager.default.changeCurrentDirectoryPath(folder.path)
        defer { _ = FileManager.default.changeCurrentDirectoryPath(previous) }
        try await Self.readmeVideoExample()
        let header = String(decoding: try fileBytes(folder.file("clip.y4m")).prefix(9), as: UTF8.self)
        #expect(header == "YUV4MPEG2")
        let frames = try Subprocess.run("ffprobe", ["-v", "error", "-count_frames", "-show_entries", "stream=nb_read_frames",
                                                    "-of", "csv=p=0", folder.file("clip.y4m")])
        #expect(frames.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == "75", "3 s at 25 fps")
    }

    static func readmeSessionExample() async throws {
        // A session: what `avpipe encode` does, with its progress as events.
        let session = try TranscodeSession(input: "phone.mov", output: "phone.webm")  // VP9 + Opus, upright
        try await session.run { event in
            if case .progress(let progress) = event { print(progress.fraction ?? 0) }  // reaches 1
        }
    }

    @Test func readmeShowsTheCompiledSessionExample() throws {
        let readme = try String(contentsOfFile: Locations.packageRoot + "/README.md", encoding: .utf8)
        let source = try String(contentsOfFile: #filePath, encoding: .utf8)
        let marker = "// A session: what `avpipe encode` does"
        let body = Self.lines(of: source, after: marker, until: "    }")
        #expect(body.count == 4)
        #expect(body == Self.lines(of: readme, after: marker, until: "```"), "README session example and readmeSessionExample() differ")
    }

    /// The example's WebM holds VP9 and Opus (ffprobe), as `avpipe encode` picks them for `.webm`.
    @Test func readmeSessionExampleRuns() async throws {
        let folder = TemporaryDirectory()
        try DemuxMedia.movie(folder.file("phone.mov"), seconds: 1)
        let previous = FileManager.default.currentDirectoryPath
        _ = FileManager.default.changeCurrentDirectoryPath(folder.path)
        defer { _ = FileManager.default.changeCurrentDirectoryPath(previous) }
        try await Self.readmeSessionExample()
        let codecs = try Subprocess.run("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name", "-of", "csv=p=0",
                                                    folder.file("phone.webm")])
        #expect(codecs.stdoutText.split(separator: "\n").map(String.init) == ["vp9", "opus"], "\(codecs.stdoutText)")
    }

    @Test func readmeShowsTheCompiledExample() throws {
        let readme = try String(contentsOfFile: Locations.packageRoot + "/README.md", encoding: .utf8)
        let source = try String(contentsOfFile: #filePath, encoding: .utf8)
        let body = Self.lines(of: source, after: "static func readmeExample() async throws {", until: "    }")
        let block = Self.lines(of: readme, after: "import AVPipeline", until: "```")
        #expect(!body.isEmpty)
        #expect(body == block, "README example and ReadmeExampleTests.readmeExample() differ")
    }

    @Test func readmeExampleRuns() async throws {
        let folder = TemporaryDirectory()
        try MediaFactory.tone(folder.file("pcm.wav"), seconds: 1)
        let previous = FileManager.default.currentDirectoryPath
        _ = FileManager.default.changeCurrentDirectoryPath(folder.path)
        defer { _ = FileManager.default.changeCurrentDirectoryPath(previous) }
        try await Self.readmeExample()
        let probe = try Probe.run(folder.file("test.aac"))
        #expect(probe.string("codec_name") == "aac")
    }

    /// The trimmed, non-empty lines between the line containing `start` and the next line that is `end`.
    static func lines(of text: String, after start: String, until end: String) -> [String] {
        let all = text.components(separatedBy: "\n")
        guard let first = all.firstIndex(where: { $0.contains(start) }) else { return [] }
        let rest = all[(first + 1)...]
        let stop = rest.firstIndex(where: { $0 == end }) ?? rest.endIndex
        return rest[..<stop].map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
