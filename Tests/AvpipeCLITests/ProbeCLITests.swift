import Foundation
import Testing
import TestSupport

@Suite struct ProbeCLITests {
    static func probeJSON(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        let result = try avpipe(["probe", "--json", path])
        #expect(result.status == 0, "\(result.stderrText)", sourceLocation: sourceLocation)
        return try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any] ?? [:]
    }

    static func tracks(_ json: [String: Any]) -> [[String: Any]] { json["tracks"] as? [[String: Any]] ?? [] }

    @Test func jsonHasTheDocumentedKeysAndAgreesWithFFprobe() throws {
        let folder = TemporaryDirectory()
        let input = try DemuxMedia.movie(folder.file("in.mp4"), seconds: 2)
        let json = try Self.probeJSON(input)
        for key in ["format", "duration", "bitrate", "tracks"] { #expect(json.keys.contains(key), "missing \(key)") }
        let trackKeys = ["index", "kind", "codec", "profile", "sample_rate", "channels", "width", "height",
                         "rotation", "bitrate", "frame_rate"]
        let probe = try Probe.run(input)
        let tracks = Self.tracks(json)
        #expect(tracks.count == probe.streams.count)
        for (index, track) in tracks.enumerated() {
            for key in trackKeys { #expect(track.keys.contains(key), "track \(index) lacks \(key)") }
            #expect(track["codec"] as? String == probe.string("codec_name", stream: index))
            #expect(track["profile"] as? String == probe.string("profile", stream: index))
        }
        let video = tracks.first { $0["kind"] as? String == "video" }!
        let audio = tracks.first { $0["kind"] as? String == "audio" }!
        #expect(video["width"] as? Int == 320 && video["height"] as? Int == 240)
        #expect(video["frame_rate"] as? Double == 25)
        #expect(video["rotation"] as? Int == 0)
        #expect(audio["sample_rate"] as? Int == 44_100 && audio["channels"] as? Int == 1)
        #expect(abs((json["duration"] as? Double ?? 0) - (probe.duration ?? -1)) < 0.001)

        let text = try avpipe(["probe", input])
        #expect(text.status == 0)
        #expect(text.stdoutText.contains("h264") && text.stdoutText.contains("320x240") && text.stdoutText.contains("44100 Hz"))
    }

    /// Pixel format, colour description and frame count, as ffprobe reports them.
    @Test(arguments: ["8bit", "10bit-bt709"])
    func pictureFactsAgreeWithFFprobe(_ variant: String) throws {
        let folder = TemporaryDirectory()
        let input = folder.file("in.mp4")
        var arguments = ["-v", "error", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=25:duration=2"]
        arguments += variant == "8bit" ? ["-c:v", "libx264", "-pix_fmt", "yuv420p"]
            : ["-c:v", "libx265", "-x265-params", "log-level=error", "-pix_fmt", "yuv420p10le",
               "-color_range", "tv", "-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709"]
        try MediaFactory.ffmpeg(arguments + [input])
        let video = try #require(Self.tracks(try Self.probeJSON(input)).first)
        let probe = try Probe.run(input)
        #expect(video["pixel_format"] as? String == probe.string("pix_fmt"))
        #expect(video["frames"] as? Int == probe.int("nb_frames"))
        for (ours, theirs) in [("color_range", "color_range"), ("color_space", "color_space"),
                               ("color_primaries", "color_primaries"), ("color_transfer", "color_transfer")] {
            let expected = probe.string(theirs).flatMap { $0 == "unknown" ? nil : $0 }
            #expect(video[ours] as? String == expected, "\(ours)")
        }
        if variant != "8bit" { #expect(video["color_space"] as? String == "bt709") }
        let text = try avpipe(["probe", input])
        #expect(text.stdoutText.contains(probe.string("pix_fmt") ?? "?") && text.stdoutText.contains("50 frames"), "\(text.stdoutText)")
    }

    /// ffprobe's display-matrix angle is counter-clockwise; ours is clockwise, like the `rotate` tag
    /// and players. FFmpeg 5.1's `-metadata:s:v rotate=90` writes a matrix that ffmpeg itself shows
    /// turned 90° counter-clockwise, so the expectation comes from the matrix, not from the tag.
    @Test func rotationFollowsTheDisplayMatrixAndSwapsTheSize() throws {
        let folder = TemporaryDirectory()
        let plain = try DemuxMedia.movie(folder.file("plain.mp4"), seconds: 1, audio: false)
        let tagged = folder.file("rotated.mp4")
        try MediaFactory.rotated(plain, degrees: 90, to: tagged)
        let sideData = try Subprocess.run("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries",
                                                      "stream_side_data=rotation", "-of", "csv=p=0", tagged])
        let counterClockwise = Int(sideData.stdoutText.split(whereSeparator: \.isNewline).first.map(String.init) ?? "") ?? 0
        let expected = ((-counterClockwise % 360) + 360) % 360
        #expect(expected == 90 || expected == 270, "ffprobe says \(counterClockwise)")
        let video = Self.tracks(try Self.probeJSON(tagged))[0]
        #expect(video["rotation"] as? Int == expected)
        #expect(video["width"] as? Int == 240 && video["height"] as? Int == 320)
        #expect(video["coded_width"] as? Int == 320 && video["coded_height"] as? Int == 240)

        // The ISO/QuickTime matrix for 90° clockwise {0,1;-1,0}, written into tkhd by hand.
        var bytes = try fileBytes(plain)
        let tkhd = bytes.indices.first { bytes[$0..<$0 + 4].elementsEqual("tkhd".utf8) }!
        let matrix = tkhd + 4 + 4 + (bytes[tkhd + 4] == 1 ? 32 : 20) + 16
        let clockwise90: [Int32] = [0, 0x10000, 0, -0x10000, 0, 0, 0, 0, 0x4000_0000]
        for (i, value) in clockwise90.enumerated() {
            for b in 0..<4 { bytes[matrix + 4 * i + b] = UInt8(truncatingIfNeeded: UInt32(bitPattern: value) >> (24 - 8 * UInt32(b))) }
        }
        let patched = folder.file("cw90.mp4")
        try Data(bytes).write(to: URL(fileURLWithPath: patched))
        let cw = Self.tracks(try Self.probeJSON(patched))[0]
        #expect(cw["rotation"] as? Int == 90)
        #expect(cw["width"] as? Int == 240 && cw["height"] as? Int == 320)
        #expect(cw["mirrored"] as? Bool == false)
    }

    /// Media3 reports rotationDegrees=90 for this transposing (rotate + mirror) matrix.
    @Test func corpusRotateAndReflectMatchesMedia3() throws {
        guard Locations.corpusAvailable else { return }
        let video = Self.tracks(try Self.probeJSON(Locations.corpusFile("androidx__sample_rotate_and_reflect.mp4")))[0]
        #expect(video["rotation"] as? Int == 90)
        #expect(video["mirrored"] as? Bool == true)
        #expect(video["width"] as? Int == 720 && video["height"] as? Int == 1080)
    }

    /// Where the last packet ends, by ffprobe reading every packet: the duration of a file's content.
    static func contentEnd(_ path: String) throws -> Double {
        let result = try Subprocess.run("ffprobe", ["-v", "error", "-show_entries", "packet=pts_time,duration_time", "-of", "csv=p=0", path])
        return result.stdoutText.split(separator: "\n").compactMap { line -> Double? in
            let fields = line.split(separator: ",").compactMap { Double($0) }
            return fields.count == 2 ? fields[0] + fields[1] : nil
        }.max() ?? -1
    }

    /// A fragmented MP4 whose header says "duration unknown" (all ones, as some live encoders and
    /// Media3's test file write it): the duration is its fragments', not FFmpeg's 39 or 93 hours.
    @Test func aFragmentedMP4WithoutADurationReportsItsFragments() throws {
        let folder = TemporaryDirectory()
        let fragmented = folder.file("fragmented.mp4")
        let piped = try Subprocess.run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc=size=160x90:rate=25:duration=3",
                                                  "-f", "lavfi", "-i", "sine=duration=3", "-c:v", "libx264", "-c:a", "aac",
                                                  "-movflags", "+frag_keyframe+empty_moov", "-f", "mp4", "pipe:1"])
        var bytes = [UInt8](piped.stdout)
        // mvhd and mdhd (version 0) keep their duration 24 bytes into the box, tkhd 28.
        for (type, offset) in [("mvhd", 24), ("tkhd", 28), ("mdhd", 24)] {
            let tag = Array(type.utf8)
            for index in 4..<(bytes.count - offset - 4) where Array(bytes[index..<index + 4]) == tag && bytes[index + 4] == 0 {
                for byte in 0..<4 { bytes[index - 4 + offset + byte] = 0xFF }
            }
        }
        try Data(bytes).write(to: URL(fileURLWithPath: fragmented))
        var inputs = [fragmented]
        if Locations.corpusAvailable { inputs.append(Locations.corpusFile("androidx__sample_fragmented.mp4")) }
        for input in inputs {
            let bogus = try #require(Probe.run(input).duration)
            // FFmpeg 5.1 takes the header at its word; 7.1 ignores it and counts the fragments it
            // read while probing, which may end short of the last one.
            let content0 = try Self.contentEnd(input)
            #expect(bogus > 3600 || bogus <= content0 + 0.001, "ffprobe: \(bogus) s")
            let json = try Self.probeJSON(input)
            let duration = json["duration"] as? Double ?? -1
            let content = try Self.contentEnd(input) - (Double(try Probe.run(input).format["start_time"] as? String ?? "0") ?? 0)
            #expect(abs(duration - content) < 0.001, "\(input): \(duration) s, the fragments hold \(content) s")
            for track in Self.tracks(json) {
                #expect((track["duration"] as? Double ?? -1) <= content + 0.001, "track \(track["index"] ?? "?"): \(track["duration"] ?? "none")")
            }
        }
    }

    @Test func probeOfABadFileIsOneLineAndExit66() throws {
        let folder = TemporaryDirectory()
        let result = try avpipe(["probe", folder.file("missing.mp4")])
        #expect(result.status == 66)
        #expect(result.stderrText == "avpipe: error: '\(folder.file("missing.mp4"))': no such file\n")
        #expect(result.stdout.isEmpty)
    }

    @Test func helpListsTheSubcommandsOptions() throws {
        let demux = try avpipe(["demux", "--help"])
        for option in ["--audio", "--video", "--audio-track", "--overwrite"] { #expect(demux.stdoutText.contains(option)) }
        let probe = try avpipe(["probe", "--help"])
        #expect(probe.stdoutText.contains("--json"))
    }
}
