import Foundation
import Testing
import TestSupport

/// The series' "H.264 + AAC → MP4" through `avpipe mux`, checked by independent readers.
@Suite struct MuxCommandTests {
    /// 3 s of 320x240 H.264 at 25 fps with B-frames (SPS/PPS before every keyframe, as ffmpeg writes
    /// raw streams) and 3 s of ADTS AAC.
    static func makeInputs(in folder: TemporaryDirectory, seconds: Int = 3) throws -> (video: String, audio: String) {
        let video = folder.file("a.h264"), audio = folder.file("a.aac")
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=25:duration=\(seconds)",
                                 "-c:v", "libx264", "-preset", "ultrafast", "-bf", "2", "-g", "25", "-pix_fmt", "yuv420p", video])
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=\(seconds)",
                                 "-ac", "2", "-c:a", "aac", "-b:a", "96k", audio])
        return (video, audio)
    }

    static func packetCount(_ path: String, _ stream: String) throws -> Int {
        let result = try Subprocess.run("ffprobe", ["-v", "error", "-select_streams", stream, "-count_packets",
                                                    "-show_entries", "stream=nb_read_packets", "-of", "csv=p=0", path])
        return Int(result.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    @Test func muxesRawH264AndADTSIntoAnMP4ThatIndependentReadersAccept() throws {
        let folder = TemporaryDirectory()
        let (video, audio) = try Self.makeInputs(in: folder)
        let out = folder.file("a.mp4")
        let result = try avpipe(["mux", "--video", video, "--audio", audio, "--out", out])
        #expect(result.status == 0, "\(result.stderrText)")

        let probe = try Probe.run(out)
        #expect(probe.streams.count == 2)
        #expect(probe.string("codec_name", stream: 0) == "h264")
        #expect(probe.string("codec_name", stream: 1) == "aac")
        #expect(probe.string("avg_frame_rate", stream: 0) == "25/1")
        #expect(try Self.packetCount(out, "v:0") == Self.packetCount(video, "v:0"))
        #expect(try Self.packetCount(out, "a:0") == Self.packetCount(audio, "a:0"))
        let videoDuration = try #require(probe.double("duration", stream: 0))
        let audioDuration = try #require(probe.double("duration", stream: 1))
        #expect(abs(videoDuration - 3) <= 0.04)
        #expect(abs(audioDuration - 3) <= 1024.0 / 44_100 * 2)
        // A/V start aligned (within one video frame).
        let starts = [probe.double("start_time", stream: 0), probe.double("start_time", stream: 1)].compactMap { $0 }
        #expect(starts.count == 2 && abs(starts[0] - starts[1]) <= 0.04, "start times \(starts)")

        // B-frames got correct presentation times: decoded frames (display order) are evenly spaced.
        let frames = try Subprocess.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                    "frame=pts_time", "-of", "csv=p=0", out])
        let times = frames.stdoutText.split(separator: "\n").compactMap { Double($0.split(separator: ",")[0]) }
        #expect(times.count == 75)
        for (a, b) in zip(times, times.dropFirst()) { #expect(abs(b - a - 0.04) < 0.001, "frame at \(a) then \(b)") }

        // faststart by default.
        let boxes = try ContainerOracles.topLevelBoxes(out).map(\.type)
        #expect(boxes.firstIndex(of: "moov")! < boxes.firstIndex(of: "mdat")!)
        _ = try ContainerOracles.atomicParsley(out)
        let tracks = try ContainerOracles.mkvmergeTracks(out)
        #expect(tracks.compactMap { $0["type"] as? String }.sorted() == ["audio", "video"])
        // A full independent decode: 75 I420 frames of 320x240, and ~3 s of stereo S16.
        #expect(try ContainerOracles.gstreamerDecodedBytes(out, video: true, in: folder) == 75 * 320 * 240 * 3 / 2)
        let audioBytes = try ContainerOracles.gstreamerDecodedBytes(out, video: false, in: folder)
        #expect(abs(audioBytes - 3 * 44_100 * 4) <= 2 * 1024 * 4, "GStreamer decoded \(audioBytes) audio bytes")
        #expect(!folder.contents().contains { $0.hasPrefix(".") }, "temporary files left: \(folder.contents())")
    }

    /// The same inputs into Matroska: a file FFmpeg reads without a complaint, that mkvmerge
    /// recognises, with every packet at the time ffmpeg's copy of the MP4 mux gives it (ffmpeg
    /// itself cannot write raw H.264 with B-frames into Matroska: "unknown timestamp").
    @Test func muxesIntoMatroskaAsFFmpegDoes() throws {
        let folder = TemporaryDirectory()
        let (video, audio) = try Self.makeInputs(in: folder)
        let out = folder.file("a.mkv"), theirs = folder.file("ffmpeg.mkv")
        let result = try avpipe(["mux", "--video", video, "--audio", audio, "--out", out])
        #expect(result.status == 0, "\(result.stderrText)")
        let check = try Subprocess.run("ffmpeg", ["-v", "warning", "-xerror", "-i", out, "-f", "null", "-"])
        #expect(check.status == 0 && check.stderrText.isEmpty, "FFmpeg reads it cleanly: \(check.stderrText)")
        #expect(try ContainerOracles.mkvmergeTracks(out).compactMap { $0["type"] as? String } == ["video", "audio"])
        #expect(try avpipe(["mux", "--video", video, "--audio", audio, "--out", folder.file("a.mp4")]).status == 0)
        try MediaFactory.ffmpeg(["-v", "error", "-i", folder.file("a.mp4"), "-c", "copy", theirs])
        for stream in ["v:0", "a:0"] {
            let ours = try Probe.packetHashes(out, stream: stream, entries: "pts")
            let ffmpegs = try Probe.packetHashes(theirs, stream: stream, entries: "pts")
            #expect(!ours.isEmpty && ours == ffmpegs, "\(stream): the same packets at the same times")
        }
    }

    @Test func annexBAndADTSRoundTripByteForByte() throws {
        let folder = TemporaryDirectory()
        let (video, audio) = try Self.makeInputs(in: folder)
        let out = folder.file("a.mp4")
        #expect(try avpipe(["mux", "--video", video, "--audio", audio, "--out", out]).status == 0)
        let back = try avpipe(["demux", out, "--video", folder.file("back.h264"), "--audio", folder.file("back.aac")])
        #expect(back.status == 0, "\(back.stderrText)")
        #expect(try fileBytes(folder.file("back.h264")) == fileBytes(video))
        #expect(try fileBytes(folder.file("back.aac")) == fileBytes(audio))
    }

    @Test func adtsThroughM4AAndBackIsIdenticalWithOurDemuxer() throws {
        let folder = TemporaryDirectory()
        let (_, audio) = try Self.makeInputs(in: folder)
        #expect(try avpipe(["mux", "--audio", audio, "--out", folder.file("a.m4a")]).status == 0)
        #expect(try avpipe(["demux", folder.file("a.m4a"), "--audio", folder.file("back.aac")]).status == 0)
        #expect(try fileBytes(folder.file("back.aac")) == fileBytes(audio))
        // And remux M4A → M4A keeps every packet.
        #expect(try avpipe(["remux", folder.file("a.m4a"), folder.file("copy.m4a")]).status == 0)
        #expect(try Self.packetCount(folder.file("copy.m4a"), "a:0") == Self.packetCount(audio, "a:0"))
    }

    /// The same job as `ffmpeg -c:a copy` writes the same file, byte for byte, with the index at
    /// either end (what the bench relies on when it compares the two). The one setting avpipe
    /// changes for audio-only files, the movie timescale (the sample rate: gapless edit lists), is
    /// given to ffmpeg too.
    @Test(arguments: [true, false])
    func remuxOfADTSIsByteIdenticalToFFmpegCopy(faststart: Bool) throws {
        let folder = TemporaryDirectory()
        let (_, audio) = try Self.makeInputs(in: folder)
        let ours = folder.file("ours.m4a"), theirs = folder.file("theirs.m4a")
        let result = try avpipe(["remux", audio, ours] + (faststart ? [] : ["--no-faststart"]))
        #expect(result.status == 0, "\(result.stderrText)")
        try MediaFactory.ffmpeg(["-v", "error", "-i", audio, "-c:a", "copy", "-movie_timescale", "44100"]
                                + (faststart ? ["-movflags", "+faststart"] : []) + [theirs])
        #expect(try fileBytes(ours) == fileBytes(theirs))
    }

    @Test func remuxAudioOnlyDropsVideo() throws {
        guard Locations.corpusAvailable else { return }
        let folder = TemporaryDirectory()
        let input = Locations.corpusFile("androidx__sample.mp4")
        let result = try avpipe(["remux", input, folder.file("audio.mp4"), "--audio-only"])
        #expect(result.status == 0, "\(result.stderrText)")
        let probe = try Probe.run(folder.file("audio.mp4"))
        #expect(probe.streams.map { $0["codec_type"] as? String } == ["audio"])
        // The corpus says: 45 AAC access units.
        #expect(try Self.packetCount(folder.file("audio.mp4"), "a:0") == 45)
        let both = try avpipe(["remux", input, folder.file("both.mp4"), "--fragmented"])
        #expect(both.status == 0, "\(both.stderrText)")
        #expect(try Self.packetCount(folder.file("both.mp4"), "v:0") == 30)
        _ = try ContainerOracles.atomicParsley(folder.file("both.mp4"))
    }

    /// Synchronous on purpose: the poll must not wait for a cooperative-pool thread (other tests
    /// block those in `waitUntilExit`), or the mux could finish before it is killed.
    @Test func killedFragmentedMuxKeepsEveryCompletedFragment() throws {
        let folder = TemporaryDirectory()
        let (video, audio) = try Self.makeInputs(in: folder, seconds: 15)
        let out = folder.file("live.mp4")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Locations.avpipe)
        process.arguments = ["mux", "--video", video, "--audio", audio, "--out", out, "--fragmented", "--realtime"]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        // Wait (bounded) until at least three fragments are complete, then kill outright.
        var fragments = 0
        for _ in 0..<400 where fragments < 3 {
            usleep(25_000)
            fragments = Self.completeBoxes(out).filter { $0 == "mdat" }.count
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal,
                "the mux finished before it was killed (status \(process.terminationStatus), \(fragments) fragments seen): \(String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))")
        #expect(fragments >= 3)

        // The partial file is where the user asked for it; cut it after its last complete box and
        // check both readers get every packet of the completed fragments, without errors.
        let complete = Self.completeBoxes(out)
        #expect(Array(complete.prefix(2)) == ["ftyp", "moov"])
        let probe = try Subprocess.run("ffprobe", ["-v", "error", "-count_packets", "-show_entries",
                                                   "stream=nb_read_packets", "-of", "csv=p=0", out])
        let counts = probe.stdoutText.split(separator: "\n").compactMap { Int($0) }
        #expect(counts.count == 2 && counts.allSatisfy { $0 > 0 }, "\(probe.stdoutText) \(probe.stderrText)")
        let demux = try avpipe(["demux", out, "--audio", folder.file("partial.aac")])
        #expect(demux.status == 0, "our demuxer: \(demux.stderrText)")
        #expect(try Self.packetCount(folder.file("partial.aac"), "a:0") == counts[1])
    }

    /// Top-level box types whose bytes are all in the file (a box still being written is left out).
    static func completeBoxes(_ path: String) -> [String] {
        guard let data = readWholeFile(path) else { return [] }
        let bytes = [UInt8](data)
        var types: [String] = []
        var offset = 0
        while offset + 8 <= bytes.count {
            let size = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            guard size >= 8, offset + size <= bytes.count else { break }
            types.append(String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self))
            offset += size
        }
        return types
    }

    // MARK: - Bad input

    @Test func swappedInputsAreTypedErrorsAndLeaveNothing() throws {
        let folder = TemporaryDirectory()
        let (video, audio) = try Self.makeInputs(in: folder, seconds: 1)
        let asVideo = try avpipe(["mux", "--video", audio, "--out", folder.file("x.mp4")])
        #expect(asVideo.status == 66)
        #expect(asVideo.stderrText.contains("has no video track"), "\(asVideo.stderrText)")
        let asAudio = try avpipe(["mux", "--audio", video, "--out", folder.file("x.mp4")])
        #expect(asAudio.status == 66)
        let badExtension = try avpipe(["mux", "--audio", audio, "--out", folder.file("x.aac")])
        #expect(badExtension.status == 64)
        #expect(folder.contents() == ["a.aac", "a.h264"])
    }

    @Test func rawH264WithoutSPSIsRefused() throws {
        let folder = TemporaryDirectory()
        let (video, _) = try Self.makeInputs(in: folder, seconds: 1)
        try MediaFactory.ffmpeg(["-v", "error", "-i", video, "-c", "copy", "-bsf:v", "filter_units=remove_types=7",
                                 "-f", "h264", folder.file("nosps.h264")])
        let result = try avpipe(["mux", "--video", folder.file("nosps.h264"), "--out", folder.file("x.mp4")])
        #expect(result.status == 66, "\(result.stderrText)")
        #expect(result.stderrText.hasPrefix("avpipe: error: "))
        #expect(!fileExists(folder.file("x.mp4")))
        #expect(!folder.contents().contains { $0.hasPrefix(".") })
    }

    @Test func unwritableOutputFolderExitsWithTheOutputCode() throws {
        let folder = TemporaryDirectory()
        let (_, audio) = try Self.makeInputs(in: folder, seconds: 1)
        for extra in [[], ["--fragmented"]] {
            let result = try avpipe(["mux", "--audio", audio, "--out", "/proc/avpipe-test.mp4"] + extra)
            #expect(result.status == 73, "\(result.stderrText)")
        }
        let missing = try avpipe(["mux", "--audio", audio, "--out", folder.file("no/such/dir/x.mp4")])
        #expect(missing.status == 73)
    }

    @Test func encodeToM4AStillWorksThroughTheMuxer() throws {
        let folder = TemporaryDirectory()
        try MediaFactory.tone(folder.file("in.wav"), seconds: 1)
        let result = try avpipe(["encode", "--in", folder.file("in.wav"), "--out", folder.file("out.m4a")])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(try Probe.run(folder.file("out.m4a")).string("codec_name") == "aac")
        _ = try ContainerOracles.atomicParsley(folder.file("out.m4a"))
    }

    /// An MPEG-TS starts 1.4 s in (the muxer's default delay): mux's copy of its tracks starts at 0
    /// with the A/V offset kept and holds the same packets at the same times as ffmpeg's copy,
    /// whether the file is named twice or once with -i.
    @Test(arguments: [false, true])
    func aTransportStreamsTimelineStartsAtZero(dashI: Bool) throws {
        let folder = TemporaryDirectory()
        let ts = try DemuxMedia.movie(folder.file("in.ts"), seconds: 2.6)
        let source = try Probe.run(ts)
        #expect((source.double("start_time", stream: 0) ?? 0) > 1, "the generated TS starts late")
        let ours = folder.file("ours.mp4"), theirs = folder.file("ffmpeg.mp4")
        let run = try avpipe(["mux"] + (dashI ? ["-i", ts] : ["--video", ts, "--audio", ts]) + ["--out", ours])
        #expect(run.status == 0, "\(run.stderrText)")
        try MediaFactory.ffmpeg(["-v", "error", "-i", ts, "-c", "copy", theirs])
        let probed = try Probe.run(ours), ffmpegs = try Probe.run(theirs)
        let start = (probed.format["start_time"] as? String).flatMap(Double.init) ?? -1
        #expect(abs(start) < 0.001, "starts at 0: \(start)")
        let duration = probed.duration ?? -1
        #expect(abs(duration - (ffmpegs.duration ?? 0)) <= 0.04 + 0.001, "as long as ffmpeg's copy: \(duration) vs \(ffmpegs.duration ?? 0)")
        #expect(abs(duration - 2.6) <= 0.04 + 0.001, "as long as the content: \(duration)")
        let offset = { (probe: ProbeResult) in (probe.double("start_time", stream: 1) ?? 0) - (probe.double("start_time", stream: 0) ?? 0) }
        #expect(abs(offset(probed) - offset(source)) < 0.001, "A/V offset kept: \(offset(probed)) vs \(offset(source))")
        for stream in ["v:0", "a:0"] {
            let ourPackets = try Probe.packetHashes(ours, stream: stream, entries: "pts,dts")
            #expect(try !ourPackets.isEmpty && ourPackets == Probe.packetHashes(theirs, stream: stream, entries: "pts,dts"),
                    "\(stream): the same packets at the same times as ffmpeg's copy")
        }
    }

    /// Matroska stores no decode times: mux gives a B-frame stream the ones ffmpeg gives it.
    @Test func anMKVWithBFramesIsMuxed() throws {
        let folder = TemporaryDirectory()
        let mkv = try DemuxMedia.movie(folder.file("b.mkv"), seconds: 2, videoArguments: ["-bf", "3", "-g", "25"])
        let pts = try Probe.packets(mkv, stream: "v:0").compactMap { ($0["pts"] as? NSNumber)?.intValue }
        #expect(pts != pts.sorted(), "the generated stream must have B-frames (pictures out of order)")
        let ours = folder.file("ours.mp4"), theirs = folder.file("ffmpeg.mp4")
        let run = try avpipe(["mux", "--video", mkv, "--audio", mkv, "--out", ours])
        #expect(run.status == 0, "\(run.stderrText)")
        try MediaFactory.ffmpeg(["-v", "error", "-i", mkv, "-c", "copy", theirs])
        #expect(try Probe.packetHashes(ours, stream: "v:0", entries: "pts,dts") == Probe.packetHashes(theirs, stream: "v:0", entries: "pts,dts"))
        // Matroska's millisecond audio times become whole 1024-sample frames, as in ffmpeg's copy.
        // (Not the last frame's duration: ffmpeg keeps Matroska's 23 ms, 1014 samples; ours lasts
        // its 1024.)
        #expect(try Probe.packetHashes(ours, stream: "a:0", entries: "pts,dts")
                == Probe.packetHashes(theirs, stream: "a:0", entries: "pts,dts"))
        let decode = try Subprocess.run("ffmpeg", ["-v", "error", "-xerror", "-i", ours, "-f", "null", "-"])
        #expect(decode.status == 0, "\(decode.stderrText)")
    }

    /// Raw H.264 + ADTS into MPEG-TS: the packets ffmpeg's `-c copy -f mpegts` writes, at the same
    /// times (a stream without B-frames: ffmpeg 5.1 cannot time raw B-frames), and GStreamer's
    /// tsdemux decodes every picture; with B-frames too.
    @Test func muxWritesATransportStreamAsFFmpegDoes() throws {
        let folder = TemporaryDirectory()
        let (bframes, audio) = try Self.makeInputs(in: folder)
        let video = folder.file("p.h264")
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=25:duration=3",
                                 "-c:v", "libx264", "-preset", "ultrafast", "-bf", "0", "-g", "25", "-pix_fmt", "yuv420p", video])
        let ours = folder.file("m.ts"), theirs = folder.file("ffmpeg.ts")
        let run = try avpipe(["mux", "--video", video, "--audio", audio, "--out", ours])
        #expect(run.status == 0, "\(run.stderrText)")
        try MediaFactory.ffmpeg(["-v", "error", "-i", video, "-i", audio, "-c", "copy", "-f", "mpegts", theirs])
        for stream in ["v:0", "a:0"] {
            let ourPackets = try Probe.packetHashes(ours, stream: stream, entries: "pts,dts")
            #expect(try !ourPackets.isEmpty && ourPackets == Probe.packetHashes(theirs, stream: stream, entries: "pts,dts"),
                    "\(stream): the same packets at the same times as ffmpeg's")
        }
        let withBFrames = folder.file("b.ts")
        #expect(try avpipe(["mux", "--video", bframes, "--audio", audio, "--out", withBFrames]).status == 0)
        for path in [ours, withBFrames] {
            let decoded = try ContainerOracles.gstreamerDecodedStreams(path, in: folder)
            #expect(decoded.video == 75 * 320 * 240 * 3 / 2, "\(path): GStreamer decoded \(decoded.video / (320 * 240 * 3 / 2)) pictures")
            #expect(abs(decoded.audio / 2 - 3 * 44_100) <= 2 * 1024, "\(path): and \(decoded.audio / 2) samples")
        }
    }

    @Test func helpDocumentsTheOptions() throws {
        let mux = try avpipe(["mux", "--help"]).stdoutText
        for option in ["--video", "--audio", "--out", "--fps", "--fragmented", "--no-faststart"] {
            #expect(mux.contains(option), "mux help lacks \(option)")
        }
        let remux = try avpipe(["remux", "--help"]).stdoutText
        #expect(remux.contains("--audio-only"))
    }
}
