import Foundation
import Testing
import TestSupport

/// `avpipe decode --video`: the pictures, byte for byte what `ffmpeg -f yuv4mpegpipe` writes (header
/// included: size, rate, pixel shape, chroma siting, range), for every codec we can generate and
/// every video file of the reference corpus.
@Suite struct DecodeVideoCLITests {
    enum Source: String, CaseIterable {
        case h264BFrames = "h264.mp4", hevc8 = "hevc8.mp4", hevc10 = "hevc10.mp4", vp9 = "vp9.webm", mpeg4 = "mpeg4.mkv"

        func make(_ path: String) throws -> String {
            switch self {
            case .h264BFrames: return try DemuxMedia.movie(path, seconds: 2, videoArguments: ["-bf", "3", "-g", "12"], audio: false)
            case .hevc8: return try DemuxMedia.movie(path, seconds: 2, videoCodec: "libx265", videoArguments: ["-x265-params", "log-level=error"], audio: false)
            case .hevc10:
                try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=25:duration=2", "-c:v", "libx265",
                                         "-x265-params", "log-level=error", "-pix_fmt", "yuv420p10le", path])
                return path
            case .vp9: return try DemuxMedia.movie(path, seconds: 2, videoCodec: "libvpx-vp9", videoArguments: ["-b:v", "300k"], audio: false)
            case .mpeg4: return try DemuxMedia.movie(path, seconds: 2, videoCodec: "mpeg4", videoArguments: ["-bf", "2"], audio: false)
            }
        }
    }

    /// ffmpeg's pictures: every decoded frame once (`-fps_mode passthrough`: by default its y4m
    /// output is constant-rate and repeats frames of irregularly timed files), as stored (`-noautorotate`:
    /// decode writes the coded pictures; the display matrix is the track's, not the pictures').
    static func ffmpegY4M(_ input: String, _ output: String) throws {
        try MediaFactory.ffmpeg(["-v", "error", "-y", "-noautorotate", "-i", input, "-map", "0:v:0", "-fps_mode", "passthrough",
                                 "-strict", "-1", "-f", "yuv4mpegpipe", output])
    }

    static func expectSamePictures(_ input: String, in folder: TemporaryDirectory, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let ours = folder.file("ours.y4m"), theirs = folder.file("ffmpeg.y4m")
        let result = try avpipe(["decode", input, "--video", ours, "-y"])
        #expect(result.status == 0, "\(input): \(result.stderrText)", sourceLocation: sourceLocation)
        try Self.ffmpegY4M(input, theirs)
        let a = try fileBytes(ours), b = try fileBytes(theirs)
        let frames = { (bytes: [UInt8]) in bytes.indices.dropLast(5).filter { bytes[$0] == 0x46 && bytes[$0 + 1...$0 + 5].elementsEqual("RAME\n".utf8) }.count }
        #expect(b.count > 1000, sourceLocation: sourceLocation)
        #expect(a.count == b.count, "\(input): \(a.count) bytes vs ffmpeg's \(b.count)", sourceLocation: sourceLocation)
        if a != b {
            Issue.record("\(input): pictures differ from ffmpeg's (\(frames(a)) vs \(frames(b)) frames; headers \(String(decoding: a.prefix(80), as: UTF8.self)) / \(String(decoding: b.prefix(80), as: UTF8.self)))", sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: Source.allCases)
    func picturesAreByteIdenticalToFFmpeg(_ source: Source) throws {
        let folder = TemporaryDirectory()
        try Self.expectSamePictures(try source.make(folder.file("in.\(source.rawValue)")), in: folder)
    }

    @Test(arguments: ["androidx__sample.mp4", "androidx__sample_rotate_and_reflect.mp4", "androidx__h265_bframes.mp4",
                      "androidx__sample_fragmented.mp4", "mp4ff__h264.mp4", "mp4ff__hevc.mp4", "mp4ff__hevc.265", "muxjs__test-segment.ts"])
    func corpusPicturesAreByteIdenticalToFFmpeg(_ name: String) throws {
        guard Locations.corpusAvailable else { print("notice: ../shared/corpus absent; \(name) skipped"); return }
        let folder = TemporaryDirectory()
        try Self.expectSamePictures(Locations.corpusFile(name), in: folder)
    }

    /// Raw planes equal ffmpeg's `-f rawvideo`, and the notice tells the reader how to read them;
    /// audio and video come out of one run.
    @Test func rawPlanesAndAudioTogether() throws {
        let folder = TemporaryDirectory()
        let input = try DemuxMedia.movie(folder.file("in.mp4"), seconds: 2)
        let result = try avpipe(["decode", input, "--video", folder.file("o.yuv"), "--out", folder.file("o.wav")])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stderrText.contains("raw yuv420p 320x240 pictures"), "\(result.stderrText)")
        try MediaFactory.ffmpeg(["-v", "error", "-i", input, "-f", "rawvideo", folder.file("ff.yuv")])
        #expect(try fileBytes(folder.file("o.yuv")) == fileBytes(folder.file("ff.yuv")))
        #expect(try Probe.run(folder.file("o.wav")).streams.count == 1)
    }

    /// `--start`/`--duration`: the pictures of `ffmpeg -ss T -i … -t D` and exactly D·rate samples.
    @Test func startAndDurationTrimExactly() throws {
        let folder = TemporaryDirectory()
        let input = try DemuxMedia.movie(folder.file("in.mp4"), seconds: 12, videoArguments: ["-g", "50", "-bf", "2"])
        let result = try avpipe(["decode", input, "--start", "0:07.3", "--duration", "2.5",
                                 "--video", folder.file("o.y4m"), "--out", folder.file("o.wav")])
        #expect(result.status == 0, "\(result.stderrText)")
        try MediaFactory.ffmpeg(["-v", "error", "-ss", "7.3", "-i", input, "-t", "2.5", "-map", "0:v", "-fps_mode", "passthrough",
                                 "-f", "yuv4mpegpipe", folder.file("ff.y4m")])
        #expect(try fileBytes(folder.file("o.y4m")) == fileBytes(folder.file("ff.y4m")))
        let samples = try Probe.run(folder.file("o.wav")).int("duration_ts")
        #expect(samples == 110_250, "2.5 s at 44.1 kHz")
    }

    /// Exact seeks in other containers: the pictures of `ffmpeg -ss` (in MPEG-TS, of its whole
    /// decode from the time asked), the samples to the sample;
    /// a raw H.264 stream has no times to seek by (a typed error, exit 69) but starts at 0.
    @Test(arguments: ["mkv", "webm", "ts"])
    func seekingOtherContainersMatchesFFmpeg(_ ext: String) throws {
        let folder = TemporaryDirectory()
        let input = folder.file("in.\(ext)")
        let codec = ext == "webm" ? ["-c:v", "libvpx-vp9", "-b:v", "300k", "-c:a", "libopus"] : ["-c:v", "libx264", "-bf", "2", "-c:a", "aac"]
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=25:duration=8", "-f", "lavfi",
                                 "-i", "sine=frequency=440:sample_rate=48000:duration=8", "-pix_fmt", "yuv420p", "-g", "25"] + codec + [input])
        let result = try avpipe(["decode", input, "--start", "4.3", "--duration", "0.9", "--video", folder.file("o.y4m"), "--out", folder.file("o.wav")])
        #expect(result.status == 0, "\(result.stderrText)")
        let ours = try fileBytes(folder.file("o.y4m"))
        let theirs: [UInt8]
        if ext == "ts" {
            // ffmpeg's seek in an MPEG-TS file is a search over its bytes that lands after the
            // keyframe here (FFmpeg 5.1's `-ss 4.3 -t 0.9` gives 5 pictures of 23, from the next
            // keyframe on): the oracle is ffmpeg's whole decode, cut at the pictures' times.
            try MediaFactory.ffmpeg(["-v", "error", "-i", input, "-map", "0:v", "-fps_mode", "passthrough", "-f", "yuv4mpegpipe", folder.file("ff.y4m")])
            let starts = try Probe.run(input).streams.compactMap { ($0["start_time"] as? String).flatMap(Double.init) }
            let origin = try #require(starts.min())
            let times = try Probe.packets(input, stream: "v:0").compactMap { ($0["pts_time"] as? String).flatMap(Double.init) }.sorted()
            let kept = times.indices.filter { times[$0] >= origin + 4.3 - 1e-6 && times[$0] < origin + 5.2 - 1e-6 }
            theirs = try Self.y4mPictures(fileBytes(folder.file("ff.y4m")), keeping: kept)
            #expect(kept.count == 23, "\(kept.count) pictures in 0.9 s")
        } else {
            try MediaFactory.ffmpeg(["-v", "error", "-ss", "4.3", "-i", input, "-t", "0.9", "-map", "0:v", "-fps_mode", "passthrough",
                                     "-f", "yuv4mpegpipe", folder.file("ff.y4m")])
            theirs = try fileBytes(folder.file("ff.y4m"))
        }
        let same = ours == theirs  // outside #expect, whose diff of two large arrays takes minutes
        #expect(same, "\(ext): pictures after the seek differ (\(ours.count) bytes against \(theirs.count))")
        #expect(try Probe.run(folder.file("o.wav")).int("duration_ts") == 43_200, "0.9 s at 48 kHz")
    }

    /// FFmpeg seeks an MPEG-TS file by a search over its bytes, which here lands after the last
    /// keyframe, mid-GOP (`ffmpeg -ss 1.3` decodes no picture of this file): the track steps back
    /// to the keyframe, and every seek gives the full decode's pictures from the asked time on.
    @Test func aSeekLandingMidGOPInMPEGTSStepsBackToTheKeyframe() throws {
        let folder = TemporaryDirectory()
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=2", "-f", "lavfi",
                                 "-i", "sine=frequency=440:duration=2", "-c:v", "libx264", "-g", "25", "-c:a", "aac", "-shortest",
                                 folder.file("m.mp4")])
        try MediaFactory.ffmpeg(["-v", "error", "-i", folder.file("m.mp4"), "-c", "copy", folder.file("m.ts")])
        let pictureSize = 160 * 120 * 3 / 2
        let pictures = { (path: String) throws -> [ArraySlice<UInt8>] in
            let bytes = try fileBytes(path)
            let frames = bytes.indices.dropLast(5).filter { bytes[$0] == 0x46 && bytes[$0 + 1...$0 + 5].elementsEqual("RAME\n".utf8) }
            return frames.map { bytes[($0 + 6)..<($0 + 6 + pictureSize)] }
        }
        let full = try avpipe(["decode", folder.file("m.ts"), "--video", folder.file("full.y4m")])
        try #require(full.status == 0, "\(full.stderrText)")
        let all = try pictures(folder.file("full.y4m"))
        try #require(all.count == 50)
        // Times are on the file's timeline, from its earliest stream (the sound, 23 ms before the
        // pictures): the pictures kept are those from that origin + start on.
        let starts = try Probe.run(folder.file("m.ts")).streams.map { (($0["codec_type"] as? String) ?? "", Double(($0["start_time"] as? String) ?? "") ?? 0) }
        let origin = try #require(starts.map(\.1).min()), pictureStart = try #require(starts.first { $0.0 == "video" }?.1)
        for start in ["1.0", "1.3", "1.7"] {
            let expected = 50 - Int(((origin + Double(start)! - pictureStart) / 0.04 - 1e-6).rounded(.up))
            let name = folder.file("from-\(start).y4m")
            let result = try avpipe(["decode", folder.file("m.ts"), "--start", start, "--video", name])
            #expect(result.status == 0, "--start \(start): \(result.stderrText)")
            let seeked = (try? pictures(name)) ?? []
            let tail = Array(all.suffix(seeked.count)) == seeked  // outside #expect, whose diff of large arrays takes minutes
            #expect(seeked.count == expected && tail, "--start \(start): \(seeked.count) pictures (\(expected) expected), or not the full decode's last ones")
        }
    }

    /// A YUV4MPEG2 stream's header and the FRAMEs numbered `indices`, as one file's bytes.
    static func y4mPictures(_ bytes: [UInt8], keeping indices: [Int]) -> [UInt8] {
        let marks = bytes.indices.dropLast(5).filter { bytes[$0] == 0x46 && bytes[$0 + 1...$0 + 5].elementsEqual("RAME\n".utf8) }
        guard let first = marks.first else { return [] }
        let ends = Array(marks.dropFirst()) + [bytes.count]
        return Array(bytes[..<first]) + indices.filter { $0 < marks.count }.flatMap { bytes[marks[$0]..<ends[$0]] }
    }

    @Test func rawStreamsSeekOnlyToTheirStart() throws {
        let folder = TemporaryDirectory()
        let movie = try DemuxMedia.movie(folder.file("in.mp4"), seconds: 4, audio: false)
        let raw = folder.file("in.h264")
        try MediaFactory.ffmpeg(["-v", "error", "-i", movie, "-c", "copy", "-bsf:v", "h264_mp4toannexb", raw])
        let later = try avpipe(["frame", raw, "--at", "2", "--out", folder.file("late.png")])
        #expect(later.status == 69 && later.stderrText.contains("no timestamps to seek by"), "\(later.stderrText)")
        #expect(try avpipe(["frame", raw, "--at", "0", "--out", folder.file("first.png")]).status == 0)
        // A Matroska file cut before its cues cannot seek, but reading on from the start gets there.
        let mkv = try DemuxMedia.movie(folder.file("in.mkv"), seconds: 4, videoArguments: ["-g", "25"], audio: false)
        try SampleMedia.truncate(mkv, to: fileSize(mkv) * 3 / 4, as: folder.file("cut.mkv"))
        let cut = try avpipe(["frame", folder.file("cut.mkv"), "--at", "1.5", "--out", folder.file("cut.png")])
        #expect(cut.status == 0, "\(cut.stderrText)")
        try MediaFactory.ffmpeg(["-v", "error", "-ss", "1.5", "-i", folder.file("cut.mkv"), "-frames:v", "1", folder.file("ff.png")])
        #expect(try FrameCLITests.pixels(folder.file("cut.png")).pixels == FrameCLITests.pixels(folder.file("ff.png")).pixels)
    }

    /// Damaged slices mid-file: the pictures go on after them (the same as ffmpeg's), and the
    /// skipped packets are reported in one warning.
    @Test func damagedSlicesAreSkippedAndReported() throws {
        let folder = TemporaryDirectory()
        let movie = try DemuxMedia.movie(folder.file("in.mp4"), seconds: 10, videoArguments: ["-g", "25", "-bf", "2"], audio: false)
        try MediaFactory.ffmpeg(["-v", "error", "-i", movie, "-c", "copy", "-bsf:v", "h264_mp4toannexb", folder.file("in.h264")])
        var bytes = try fileBytes(folder.file("in.h264"))
        var state: UInt32 = 7
        for index in (bytes.count / 2)..<(bytes.count / 2 + 4000) where bytes[index] != 0 && bytes[index - 1] != 0 {
            state = state &* 1_103_515_245 &+ 12_345
            bytes[index] = UInt8(1 + (state >> 16) % 254)  // never 0: no start code appears
        }
        try Data(bytes).write(to: URL(fileURLWithPath: folder.file("bad.h264")))
        try MediaFactory.ffmpeg(["-v", "error", "-i", folder.file("bad.h264"), "-c", "copy", folder.file("bad.mp4")])
        let result = try avpipe(["decode", folder.file("bad.mp4"), "--video", folder.file("o.y4m")])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stderrText.contains("damaged video packet"), "\(result.stderrText)")
        let reference = try Subprocess.run("ffmpeg", ["-v", "quiet", "-i", folder.file("bad.mp4"), "-fps_mode", "passthrough",
                                                      "-f", "yuv4mpegpipe", "-"])
        let ours = try fileBytes(folder.file("o.y4m"))
        #expect(ours.count > 200 * 115_200, "pictures continue after the damage")
        #expect(ours == [UInt8](reference.stdout))

        // --null decodes and writes nothing: the same report, an untouched folder.
        let before = FolderSnapshot(folder.path)
        let null = try avpipe(["decode", folder.file("bad.mp4"), "--null"])
        #expect(null.status == 0 && null.stderrText.contains("damaged video packet"), "\(null.stderrText)")
        #expect(FolderSnapshot(folder.path) == before)
    }

    /// A video codec nobody decodes: exit 69 naming it, nothing written. (An AVI whose H.264 track
    /// is relabelled with an unknown four-character code.) Also: an AVI's frame count is in ticks
    /// of its rate, not packets, so a complete AVI is not reported as cut short.
    @Test func anUnknownVideoCodecIsUnsupported() throws {
        let folder = TemporaryDirectory()
        let movie = try DemuxMedia.movie(folder.file("in.mp4"), seconds: 1, videoArguments: ["-bf", "2"], audio: false)
        let avi = folder.file("in.avi")
        try MediaFactory.ffmpeg(["-v", "error", "-i", movie, "-c:v", "copy", avi])
        let complete = try avpipe(["decode", avi, "--video", folder.file("ok.y4m")])
        #expect(complete.status == 0 && complete.stderrText.isEmpty, "\(complete.stderrText)")

        var bytes = try fileBytes(avi)
        let header = min(8192, bytes.count)
        for index in 0..<(header - 4) where bytes[index..<index + 4].elementsEqual("avc1".utf8) {
            bytes.replaceSubrange(index..<index + 4, with: Array("ZZZZ".utf8))
        }
        try Data(bytes).write(to: URL(fileURLWithPath: folder.file("unknown.avi")))
        let before = FolderSnapshot(folder.path)
        for arguments in [["decode", folder.file("unknown.avi"), "--video", folder.file("o.y4m")],
                          ["frame", folder.file("unknown.avi"), "--at", "0", "--out", folder.file("o.png")]] {
            let result = try avpipe(arguments)
            #expect(result.status == 69 && result.stderrText.contains("tag ZZZZ"), "\(arguments): \(result.stderrText)")
        }
        #expect(FolderSnapshot(folder.path) == before)
    }

    /// Bad requests fail before anything is written; a file without video is the input's fault.
    @Test func badRequestsFailCleanly() throws {
        let folder = TemporaryDirectory()
        let audioOnly = try DemuxMedia.movie(folder.file("a.m4a"), seconds: 1, video: false)
        let movie = try DemuxMedia.movie(folder.file("m.mp4"), seconds: 1)
        let cases: [([String], Int32)] = [
            (["decode", audioOnly, "--video", folder.file("o.y4m")], 66),
            (["decode", movie, "--video", folder.file("o.png")], 64),
            (["decode", movie], 64),
            (["decode", movie, "--video", folder.file("missing/o.y4m")], 73),
        ]
        for (arguments, code) in cases {
            let result = try avpipe(arguments)
            #expect(result.status == code, "\(arguments): \(result.stderrText)")
        }
        #expect(folder.contents().sorted() == ["a.m4a", "m.mp4"])
    }
}
