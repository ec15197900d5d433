import Foundation
import Testing
import TestSupport

/// Partial downloads through the CLI: demux, remux, decode and encode write everything intact, warn
/// once and exit 0, with the same packets as ffmpeg's salvage less the one cut short (which ffmpeg
/// passes on broken); `--strict` refuses the file and writes nothing. A complete file whose edit
/// list hides a packet is not called truncated.
@Suite struct SalvageCLITests {
    static func warnings(_ result: ProcessResult) -> [Substring] {
        result.stderrText.split(separator: "\n").filter { $0.hasPrefix("avpipe: warning: ") }
    }

    /// Each packet's payload (MD5) and pts, one line each, as ffprobe reads `stream` of `path`.
    static func payloads(_ path: String, _ stream: String) throws -> [Substring] {
        try Probe.packetHashes(path, stream: stream, entries: "pts").split(separator: "\n")
    }

    @Test(arguments: [("mp4", 0.5), ("mp4", 0.9), ("mov", 0.5), ("mov", 0.9), ("m4a", 0.9)])
    func demuxAndRemuxKeepEveryIntactPacket(_ ext: String, _ fraction: Double) throws {
        let folder = TemporaryDirectory()
        let hasVideo = ext != "m4a"
        let intact = try DemuxMedia.movie(folder.file("in.\(ext)"), seconds: 6, videoArguments: ["-g", "25", "-bf", "2"],
                                          video: hasVideo, extraArguments: ["-movflags", "+faststart"])
        let download = try PartialDownload(intact, fraction: fraction, as: folder.file("cut.\(ext)"))
        let intactAudio = try download.intactPackets("a:0"), intactVideo = hasVideo ? try download.intactPackets("v:0") : []
        if !hasVideo { #expect(intactAudio.count < (try download.allPackets("a:0")).count, "the cut must fall inside the audio") }

        // demux: ADTS frames = ffmpeg's ADTS of the cut file, less a trailing frame cut short;
        // Annex B = ffmpeg's (h264_mp4toannexb) likewise, less at most its broken last packet.
        let demux = try avpipe(["demux", download.cutFile, "--audio", folder.file("o.aac")]
                               + (hasVideo ? ["--video", folder.file("o.h264")] : []))
        #expect(demux.status == 0, "\(demux.stderrText)")
        #expect(Self.warnings(demux).count == 1 && demux.stderrText.contains("incomplete"), "\(demux.stderrText)")
        try MediaFactory.ffmpeg(["-v", "quiet", "-i", download.cutFile, "-map", "0:a", "-c", "copy", "-f", "adts", folder.file("ff.aac")])
        let ours = try fileBytes(folder.file("o.aac")), theirs = try fileBytes(folder.file("ff.aac"))
        let ourFrames = try ADTSParser.headers(ours)
        #expect(ourFrames.count == intactAudio.count)
        #expect(ourFrames.map { $0.frameLength - 7 } == intactAudio.map(\.size))
        #expect(theirs.starts(with: ours), "our ADTS is ffmpeg's, up to the frame ffmpeg keeps broken")
        #expect(theirs.count - ours.count < 7 + (intactAudio.map(\.size).max() ?? 0), "ffmpeg has at most one frame more")
        if hasVideo {
            try MediaFactory.ffmpeg(["-v", "quiet", "-i", download.cutFile, "-map", "0:v", "-c:v", "copy", "-bsf:v", "h264_mp4toannexb",
                                     "-f", "h264", folder.file("ff.h264")])
            let ourVideo = try fileBytes(folder.file("o.h264")), theirVideo = try fileBytes(folder.file("ff.h264"))
            #expect(try PartialDownload.packets(folder.file("o.h264"), stream: "v:0").count == intactVideo.count)
            #expect(!ourVideo.isEmpty && theirVideo.starts(with: ourVideo), "our Annex B is ffmpeg's, up to the packet it keeps broken")
            // The broken packet, and the parameter sets put before it if it is a keyframe.
            #expect(theirVideo.count - ourVideo.count < 256 + (intactVideo.map(\.size).max() ?? 0), "ffmpeg has at most one packet more")
        }

        // remux: per track, ffmpeg's copy of the cut file (same payloads at the same times) less
        // its packet cut short.
        let remux = try avpipe(["remux", download.cutFile, folder.file("o.\(ext)")])
        #expect(remux.status == 0, "\(remux.stderrText)")
        #expect(Self.warnings(remux).count == 1, "\(remux.stderrText)")
        try MediaFactory.ffmpeg(["-v", "quiet", "-i", download.cutFile, "-c", "copy", folder.file("ff.\(ext)")])
        for (stream, intactPackets) in [("a:0", intactAudio)] + (hasVideo ? [("v:0", intactVideo)] : []) {
            let ourPackets = try PartialDownload.packets(folder.file("o.\(ext)"), stream: stream)
            #expect(ourPackets.map(\.size) == intactPackets.map(\.size), "\(stream)")
            let ourPayloads = try Self.payloads(folder.file("o.\(ext)"), stream)
            let ffmpegPayloads = try Self.payloads(folder.file("ff.\(ext)"), stream)
            #expect(ffmpegPayloads.starts(with: ourPayloads), "\(stream) differs from ffmpeg's salvage")
            #expect(ffmpegPayloads.count - ourPayloads.count <= 1, "\(stream)")
        }

        // --strict: the typed error, and nothing written.
        let before = FolderSnapshot(folder.path)
        for arguments in [["demux", download.cutFile, "--audio", folder.file("s.aac")],
                          ["remux", download.cutFile, folder.file("s.mp4")],
                          ["decode", download.cutFile, "--out", folder.file("s.wav")]] {
            let strict = try avpipe(arguments + ["--strict"])
            #expect(strict.status == 66, "\(arguments): \(strict.stderrText)")
            #expect(strict.stderrText.contains("truncated"), "\(strict.stderrText)")
        }
        #expect(FolderSnapshot(folder.path) == before)
    }

    /// Encoding a partial download (not a WAV) encodes the intact packets' audio: FFmpeg's own
    /// M4A/MP4 starts with 1024 samples of priming its edit list skips, so that is
    /// (intact packets − 1) × 1024 samples, as the output's edit list presents them.
    @Test(arguments: ["mp4", "m4a"])
    func encodeOfACutFileEncodesTheIntactAudio(_ ext: String) throws {
        let folder = TemporaryDirectory()
        let intact = try DemuxMedia.movie(folder.file("in.\(ext)"), seconds: 4, video: ext == "mp4", extraArguments: ["-movflags", "+faststart"])
        let download = try PartialDownload(intact, fraction: 0.9, as: folder.file("cut.\(ext)"))
        let intactAudio = try download.intactPackets("a:0")
        #expect(intactAudio.count < (try download.allPackets("a:0")).count, "the cut must fall inside the audio")
        let output = folder.file("o.m4a")
        let run = try avpipe(["encode", "--in", download.cutFile, "--out", output])
        #expect(run.status == 0, "\(run.stderrText)")
        #expect(Self.warnings(run).count == 1 && run.stderrText.contains("incomplete"), "\(run.stderrText)")
        #expect(run.stderrText.split(separator: "\n").count == 1, "\(run.stderrText)")
        #expect(try Probe.presentedAudioSamples(output) == (intactAudio.count - 1) * 1024)
        let faad = try Subprocess.run("faad", ["-o", "/dev/null", output])
        #expect(faad.status == 0, "faad: \(faad.stderrText)")

        let before = FolderSnapshot(folder.path)
        let strict = try avpipe(["encode", "--in", download.cutFile, "--out", folder.file("s.m4a"), "--strict"])
        #expect(strict.status == 66 && strict.stderrText.contains("truncated"), "\(strict.stderrText)")
        #expect(FolderSnapshot(folder.path) == before)
    }

    /// A raw .aac whose last ADTS frame is cut (inside its payload, or inside its header): demux
    /// writes the whole frames before it, byte for byte, and decode their samples (ffmpeg's decode
    /// of those frames), each with one warning; `--strict` refuses it and writes nothing.
    @Test(arguments: ["payload", "header"])
    func aCutLastADTSFrameIsLeftOut(_ cutInside: String) throws {
        let folder = TemporaryDirectory()
        let intact = try DemuxMedia.movie(folder.file("in.aac"), seconds: 2, video: false)
        let bytes = try fileBytes(intact)
        let frames = try ADTSParser.headers(bytes)
        let lastFrame = try #require(frames.last?.frameLength)
        let wholeLength = bytes.count - lastFrame
        let cut = folder.file("cut.aac")
        try SampleMedia.truncate(intact, to: cutInside == "payload" ? bytes.count - 1 : wholeLength + 3, as: cut)
        let whole = folder.file("whole.aac")
        try SampleMedia.truncate(intact, to: wholeLength, as: whole)

        let demux = try avpipe(["demux", cut, "--audio", folder.file("o.aac")])
        #expect(demux.status == 0 && Self.warnings(demux).count == 1, "\(demux.stderrText)")
        #expect(try fileBytes(folder.file("o.aac")) == Array(bytes.prefix(wholeLength)), "the whole frames, nothing else")

        let decode = try avpipe(["decode", cut, "--out", folder.file("o.wav")])
        #expect(decode.status == 0 && Self.warnings(decode).count == 1, "\(decode.stderrText)")
        try MediaFactory.ffmpeg(["-v", "quiet", "-i", whole, "-f", "s16le", folder.file("ff.pcm")])
        try MediaFactory.ffmpeg(["-v", "quiet", "-i", folder.file("o.wav"), "-f", "s16le", folder.file("ours.pcm")])
        let ours = try fileBytes(folder.file("ours.pcm"))
        #expect(ours.count == (frames.count - 1) * 1024 * 2)
        #expect(ours == (try fileBytes(folder.file("ff.pcm"))), "ffmpeg's decode of the whole frames")

        let before = FolderSnapshot(folder.path)
        for arguments in [["demux", cut, "--audio", folder.file("s.aac")], ["decode", cut, "--out", folder.file("s.wav")]] {
            let strict = try avpipe(arguments + ["--strict"])
            #expect(strict.status == 66, "\(arguments): \(strict.stderrText)")
        }
        #expect(FolderSnapshot(folder.path) == before)
    }

    /// Decoding a cut M4A gives ffmpeg's samples for the intact packets (the last intact packet's
    /// samples included: nothing else is lost).
    @Test func decodeOfACutM4AMatchesFFmpegUpToTheCut() throws {
        let folder = TemporaryDirectory()
        let intact = try DemuxMedia.movie(folder.file("in.m4a"), seconds: 6, video: false, extraArguments: ["-movflags", "+faststart"])
        let download = try PartialDownload(intact, fraction: 0.9, as: folder.file("cut.m4a"))
        let result = try avpipe(["decode", download.cutFile, "--out", folder.file("o.wav")])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(Self.warnings(result).count == 1, "\(result.stderrText)")
        try MediaFactory.ffmpeg(["-v", "quiet", "-i", download.cutFile, "-f", "s16le", folder.file("ff.pcm")])
        try MediaFactory.ffmpeg(["-v", "quiet", "-i", folder.file("o.wav"), "-f", "s16le", folder.file("ours.pcm")])
        let ours = try fileBytes(folder.file("ours.pcm")), theirs = try fileBytes(folder.file("ff.pcm"))
        #expect(!ours.isEmpty && theirs.starts(with: ours), "our samples are ffmpeg's, up to the packet it decodes broken")
        #expect(theirs.count - ours.count <= 2 * 1024 * 2, "at most the broken packet's samples (and its decoder delay) more")
    }

    /// A WAV copy that stopped half way encodes what is there, with the warning.
    @Test func encodeOfACutWAVEncodesTheAudioThatIsThere() throws {
        let folder = TemporaryDirectory()
        let wav = try MediaFactory.tone(folder.file("in.wav"), seconds: 4, channels: 1)
        let download = try PartialDownload(wav, fraction: 0.5, as: folder.file("cut.wav"))
        let keptSeconds = Double((download.cutLength - 44) / 2) / 44_100
        let result = try avpipe(["encode", "--in", download.cutFile, "--out", folder.file("o.m4a")])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(Self.warnings(result).count == 1 && result.stderrText.contains("sample frames"), "\(result.stderrText)")
        let duration = try #require(try Probe.run(folder.file("o.m4a")).duration)
        #expect(abs(duration - keptSeconds) < 2 * 1024 / 44_100.0, "\(duration) s encoded of \(keptSeconds) s kept")
    }

    /// avpipe's own M4A of 146,433 samples: its edit list ends inside the last of its 145 packets.
    @Test func ourOwnEncodeWithAnEditListDecodesWithoutAWarning() throws {
        let folder = TemporaryDirectory()
        let wav = try MediaFactory.tone(folder.file("in.wav"), seconds: 4, channels: 1, extraArguments: ["-af", "atrim=end_sample=146433"])
        #expect(try avpipe(["encode", "--in", wav, "--out", folder.file("o.m4a")]).status == 0)
        for strict in [[], ["--strict"]] {
            let decode = try avpipe(["decode", folder.file("o.m4a"), "--out", folder.file("o\(strict.count).wav")] + strict)
            #expect(decode.status == 0, "\(decode.stderrText)")
            #expect(decode.stderrText.isEmpty, "\(decode.stderrText)")
        }
        try MediaFactory.ffmpeg(["-v", "quiet", "-i", folder.file("o.m4a"), "-f", "s16le", folder.file("ff.pcm")])
        try MediaFactory.ffmpeg(["-v", "quiet", "-i", folder.file("o0.wav"), "-f", "s16le", folder.file("ours.pcm")])
        // ffmpeg's decode goes on through the last packet's padding; ours ends with the input.
        let ours = try fileBytes(folder.file("ours.pcm"))
        #expect(ours.count == 146_433 * 2)
        #expect(ours[...] == (try fileBytes(folder.file("ff.pcm"))).prefix(146_433 * 2))
    }
}
