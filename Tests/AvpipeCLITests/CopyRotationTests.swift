import Foundation
import Testing
import TestSupport

/// A portrait phone clip (landscape pictures plus a display matrix) copied into each container
/// keeps its display matrix wherever this FFmpeg can write it there, as `ffmpeg -c copy` does
/// with the same muxer (MP4 and MOV always; Matroska and live HLS fMP4 segments with FFmpeg 7,
/// not 5.1; MPEG-TS never), and in VOD HLS fMP4 segments always (FFmpeg 5.1's hls muxer drops
/// it; avpipe writes it into the init segment). Where it is lost, the notice names it; where it
/// is kept, `avpipe frame` shows the copy's picture upright, as it shows the source's.
@Suite struct CopyRotationTests {
    struct Target: CustomStringConvertible, Sendable {
        let name: String
        /// avpipe's arguments after the input, given the output folder.
        let ours: @Sendable (TemporaryDirectory) -> [String]
        /// ffmpeg's output arguments for the same output, given the output folder.
        let theirs: @Sendable (TemporaryDirectory) -> [String]
        /// The files holding the video track (the init segment and first segment of an HLS stream).
        let ourFiles: [String], theirFiles: [String]
        /// avpipe keeps the matrix even where ffmpeg's copy through the same muxer drops it.
        var keepsWhereFFmpegDrops = false
        var description: String { name }
    }

    static let targets: [Target] = [
        Target(name: "mov", ours: { ["remux", "-", $0.file("ours.mov")] }, theirs: { [$0.file("ffmpeg.mov")] },
               ourFiles: ["ours.mov"], theirFiles: ["ffmpeg.mov"]),
        Target(name: "mkv", ours: { ["remux", "-", $0.file("ours.mkv")] }, theirs: { [$0.file("ffmpeg.mkv")] },
               ourFiles: ["ours.mkv"], theirFiles: ["ffmpeg.mkv"]),
        Target(name: "ts", ours: { ["remux", "-", $0.file("ours.ts")] }, theirs: { [$0.file("ffmpeg.ts")] },
               ourFiles: ["ours.ts"], theirFiles: ["ffmpeg.ts"]),
        Target(name: "hls", ours: { ["hls", "-", "--out", $0.file("ours.m3u8")] },
               theirs: { ["-f", "hls", "-hls_playlist_type", "vod", $0.file("ffmpeg.m3u8")] },
               ourFiles: ["ours0.ts"], theirFiles: ["ffmpeg0.ts"]),
        Target(name: "hls --fmp4", ours: { ["hls", "-", "--out", $0.file("ours.m3u8"), "--fmp4"] },
               theirs: { ["-f", "hls", "-hls_playlist_type", "vod", "-hls_segment_type", "fmp4", "-hls_fmp4_init_filename", "ffmpeg-init.mp4",
                          $0.file("ffmpeg.m3u8")] },
               ourFiles: ["ours-init.mp4", "ours0.m4s"], theirFiles: ["ffmpeg-init.mp4", "ffmpeg0.m4s"], keepsWhereFFmpegDrops: true),
        Target(name: "hls --fmp4 --live", ours: { ["hls", "-", "--out", $0.file("ours.m3u8"), "--fmp4", "--live"] },
               theirs: { ["-f", "hls", "-hls_segment_type", "fmp4", "-hls_fmp4_init_filename", "ffmpeg-init.mp4", $0.file("ffmpeg.m3u8")] },
               ourFiles: ["ours-init.mp4", "ours0.m4s"], theirFiles: ["ffmpeg-init.mp4", "ffmpeg0.m4s"]),
    ]

    /// The display matrices of `path`'s streams, as ffprobe reads them.
    static func displayMatrices(_ path: String) throws -> [String] {
        try RemuxMetadataTests.facts(path).displayMatrix
    }

    /// `files` of `folder` joined into one (an fMP4 init segment and its first segment make a file).
    static func joined(_ files: [String], in folder: TemporaryDirectory, as name: String) throws -> String {
        let data = try files.reduce(into: Data()) { $0 += try Data(contentsOf: URL(fileURLWithPath: folder.file($1))) }
        try data.write(to: URL(fileURLWithPath: folder.file(name)))
        return folder.file(name)
    }

    @Test(arguments: targets)
    func theDisplayMatrixIsKeptWhereTheContainerCanHoldItAndNamedWhereNot(_ target: Target) throws {
        let folder = TemporaryDirectory()
        let plain = try DemuxMedia.movie(folder.file("plain.mp4"), seconds: 1, size: "160x90", audio: false)
        let source = folder.file("portrait.mp4")
        try MediaFactory.rotated(plain, degrees: 90, to: source)
        let matrix = try Self.displayMatrices(source)
        #expect(matrix.count == 1, "the generated clip must carry a display matrix")

        let arguments = target.ours(folder).map { $0 == "-" ? source : $0 }
        let run = try avpipe(arguments)
        #expect(run.status == 0, "\(run.stderrText)")
        try MediaFactory.ffmpeg(["-v", "error", "-i", source, "-c", "copy"] + target.theirs(folder))
        let ours = try Self.joined(target.ourFiles, in: folder, as: "ours-joined"),
            theirs = try Self.joined(target.theirFiles, in: folder, as: "theirs-joined")
        let kept = try Self.displayMatrices(ours)
        // ffmpeg's copy through the same muxer says whether this FFmpeg can write the matrix there.
        let ffmpegKeeps = try !Self.displayMatrices(theirs).isEmpty
        #expect(kept == (ffmpegKeeps || target.keepsWhereFFmpegDrops ? matrix : []), "\(target): ffmpeg \(ffmpegKeeps ? "keeps" : "drops") the matrix")
        let notice = run.stderrText.contains("not copied into") && run.stderrText.contains("the rotation (")
        #expect(notice == kept.isEmpty, "\(target): the notice names the rotation exactly when it is lost: \(run.stderrText)")

        if !kept.isEmpty {
            // Upright: the copy's picture is the source's, pixel for pixel.
            for (input, png) in [(source, "source.png"), (ours, "copy.png")] {
                let frame = try avpipe(["frame", input, "--at", "0.5", "--out", folder.file(png)])
                #expect(frame.status == 0, "\(frame.stderrText)")
            }
            let a = try FrameCLITests.pixels(folder.file("source.png")), b = try FrameCLITests.pixels(folder.file("copy.png"))
            #expect(a.facts == "90,160,rgb24" && a.facts == b.facts && a.pixels == b.pixels, "\(target): \(a.facts) vs \(b.facts)")
        }
    }

    /// `mux` names the loss too: a rotated clip's video muxed into MPEG-TS.
    @Test func muxNamesTheRotationATransportStreamLoses() throws {
        let folder = TemporaryDirectory()
        let plain = try DemuxMedia.movie(folder.file("plain.mp4"), seconds: 1, size: "160x90", audio: false)
        try MediaFactory.rotated(plain, degrees: 90, to: folder.file("portrait.mp4"))
        let run = try avpipe(["mux", "--video", folder.file("portrait.mp4"), "--out", folder.file("out.ts")])
        #expect(run.status == 0, "\(run.stderrText)")
        #expect(try Self.displayMatrices(folder.file("out.ts")).isEmpty)
        #expect(run.stderrText.contains("not copied into \(folder.file("out.ts")): the rotation ("), "\(run.stderrText)")
        let kept = try avpipe(["mux", "--video", folder.file("portrait.mp4"), "--out", folder.file("out.mov")])
        #expect(kept.status == 0 && !kept.stderrText.contains("rotation"), "\(kept.stderrText)")
        #expect(try Self.displayMatrices(folder.file("out.mov")) == (try Self.displayMatrices(folder.file("portrait.mp4"))))
    }
}
