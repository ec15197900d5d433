import Foundation
import Testing
import TestSupport

/// A codec the target container cannot hold (or holds only in FFmpeg's experimental mode) is exit
/// 69 with FFmpeg's own reason in the message, never 70 ("internal failure"), and nothing is left.
@Suite struct UnsupportedCombinationTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let make: @Sendable (TemporaryDirectory) throws -> [String]
        let reason: String
        /// Where FFmpeg versions differ (FLAC in MP4 is experimental in 5.1, not in 7.1): the same
        /// copy by this system's ffmpeg, the oracle of whether avpipe must refuse or write it.
        var ffmpegCopy: (@Sendable (TemporaryDirectory) throws -> [String])? = nil
        var testDescription: String { name }
    }

    static func flac(_ folder: TemporaryDirectory) throws -> String {
        let path = folder.file("in.flac")
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "sine=duration=1", "-c:a", "flac", path])
        return path
    }

    static func vp9(_ folder: TemporaryDirectory) throws -> String {
        let path = folder.file("in.webm")
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "testsrc=size=64x48:duration=1", "-c:v", "libvpx-vp9", path])
        return path
    }

    /// An M4A whose AudioSpecificConfig says AAC-LD (object type 23), patched into an AAC-LC file
    /// made by ffmpeg: like xHE-AAC (42), a profile ADTS has no header fields for.
    static func aacLD(_ folder: TemporaryDirectory) throws -> String {
        let path = folder.file("in.m4a")
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "sine=duration=1", "-c:a", "aac", path])
        var bytes = try fileBytes(path)
        // esds → DecoderSpecificInfo (tag 5, ffmpeg's 4-byte length 80 80 80 05) → the config,
        // whose first 5 bits are the object type.
        let esds = try #require(bytes.indices.first { bytes[$0...].starts(with: Array("esds".utf8)) })
        let info = try #require((esds..<bytes.count).first { bytes[$0...].starts(with: [0x05, 0x80, 0x80, 0x80]) }) + 5
        #expect(bytes[info] >> 3 == 2, "the generated file is AAC-LC")
        bytes[info] = (23 << 3) | (bytes[info] & 0x07)
        // AAC-LD's config goes on with a 2-bit epConfig where LC's ends (ffmpeg's sync extension
        // begins with 01): 0, the only value FFmpeg 7.1's demuxer reads (5.1 takes any).
        bytes[info + 2] &= 0x3F
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    static let cases: [Case] = [
        Case(name: "demux AAC-LD → ADTS", make: { ["demux", try aacLD($0), "--audio", $0.file("out.aac")] },
             reason: "MPEG-4 AOT 23 is not allowed in ADTS"),
        Case(name: "remux FLAC → .mp4", make: { ["remux", try flac($0), $0.file("out.mp4")] }, reason: "flac in MP4 support is experimental",
             ffmpegCopy: { ["-i", $0.file("in.flac"), "-c", "copy", $0.file("ffmpeg.mp4")] }),
        Case(name: "mux FLAC → .mp4", make: { ["mux", "--audio", try flac($0), "--out", $0.file("out.mp4")] }, reason: "experimental",
             ffmpegCopy: { ["-i", $0.file("in.flac"), "-c", "copy", $0.file("ffmpeg.mp4")] }),
        Case(name: "remux VP9 → .mov", make: { ["remux", try vp9($0), $0.file("out.mov")] }, reason: "vp9 only supported in MP4"),
    ]

    @Test(arguments: cases)
    func refusedWithFFmpegsReason(_ c: Case) throws {
        let folder = TemporaryDirectory()
        let arguments = try c.make(folder)
        if let copy = c.ffmpegCopy {
            let ffmpeg = try Subprocess.run("ffmpeg", ["-v", "error"] + (try copy(folder)))
            try? FileManager.default.removeItem(atPath: folder.file("ffmpeg.mp4"))
            if ffmpeg.status == 0 {  // this FFmpeg writes it: so must avpipe
                let result = try avpipe(arguments)
                #expect(result.status == 0, "ffmpeg writes it, avpipe: \(result.status): \(result.stderrText)")
                #expect(throws: Never.self) { try Probe.run(folder.file("out.mp4")) }
                return
            }
        }
        let before = FolderSnapshot(folder.path)
        let result = try avpipe(arguments)
        #expect(result.status == 69, "\(result.status): \(result.stderrText)")
        #expect(result.stderrText.contains(c.reason), "\(result.stderrText)")
        #expect(FolderSnapshot(folder.path) == before, "nothing left behind")
    }
}
