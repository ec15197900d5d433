import Foundation
import Testing
import TestSupport

/// Partial downloads through the CLI: demux, remux and decode write everything intact, warn once and
/// exit 0, with the same packets as ffmpeg's salvage less the one cut short (which ffmpeg passes on
/// broken); `--strict` refuses the file and writes nothing. A complete file whose edit list hides a
/// packet is not called truncated.
@Suite struct SalvageCLITests {
    static func warnings(_ result: ProcessResult) -> [Substring] {
        result.stderrText.split(separator: "\n").filter { $0.hasPrefix("avpipe: warning: ") }
    }

    @Test(arguments: [("mp4", 0.5), ("mp4", 0.9), ("mov", 0.5), ("mov", 0.9)])
    func demuxAndRemuxKeepEveryIntactPacket(_ ext: String, _ fraction: Double) throws {
        let folder = TemporaryDirectory()
        let intact = try DemuxMedia.movie(folder.file("in.\(ext)"), seconds: 6, videoArguments: ["-g", "25", "-bf", "2"],
                                          extraArguments: ["-movflags", "+faststart"])
        let download = try PartialDownload(intact, fraction: fraction, as: folder.file("cut.\(ext)"))
        let intactAudio = try download.intactPackets("a:0"), intactVideo = try download.intactPackets("v:0")

        // demux: ADTS frames = ffmpeg's ADTS of the cut file, less a trailing frame cut short.
        let demux = try avpipe(["demux", download.cutFile, "--audio", folder.file("o.aac"), "--video", folder.file("o.h264")])
        #expect(demux.status == 0, "\(demux.stderrText)")
        #expect(Self.warnings(demux).count == 1 && demux.stderrText.contains("incomplete"), "\(demux.stderrText)")
        try MediaFactory.ffmpeg(["-v", "quiet", "-i", download.cutFile, "-map", "0:a", "-c", "copy", "-f", "adts", folder.file("ff.aac")])
        let ours = try fileBytes(folder.file("o.aac")), theirs = try fileBytes(folder.file("ff.aac"))
        let ourFrames = try ADTSParser.headers(ours)
        #expect(ourFrames.count == intactAudio.count)
        #expect(ourFrames.map { $0.frameLength - 7 } == intactAudio.map(\.size))
        #expect(theirs.starts(with: ours), "our ADTS is ffmpeg's, up to the frame ffmpeg keeps broken")
        #expect(theirs.count - ours.count < 7 + (intactAudio.map(\.size).max() ?? 0), "ffmpeg has at most one frame more")
        #expect(try PartialDownload.packets(folder.file("o.h264"), stream: "v:0").count == intactVideo.count)

        // remux: per track, ffmpeg's copy of the cut file less its packet cut short.
        let remux = try avpipe(["remux", download.cutFile, folder.file("o.mp4")])
        #expect(remux.status == 0, "\(remux.stderrText)")
        #expect(Self.warnings(remux).count == 1, "\(remux.stderrText)")
        try MediaFactory.ffmpeg(["-v", "quiet", "-i", download.cutFile, "-c", "copy", folder.file("ff.mp4")])
        for (stream, intactPackets) in [("a:0", intactAudio), ("v:0", intactVideo)] {
            let ourPackets = try PartialDownload.packets(folder.file("o.mp4"), stream: stream)
            let ffmpegPackets = try PartialDownload.packets(folder.file("ff.mp4"), stream: stream)
            #expect(ourPackets.map(\.size) == intactPackets.map(\.size), "\(stream)")
            #expect(Array(ffmpegPackets.prefix(ourPackets.count)) == ourPackets, "\(stream) differs from ffmpeg's salvage")
            #expect(ffmpegPackets.count - ourPackets.count <= 1, "\(stream)")
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
