import Foundation
import Testing
import TestSupport

/// `avpipe --version`, `--help` and usage errors must not pay for loading FFmpeg's ~140 libraries
/// (x86_64 Linux, where CFFmpegLoader loads them on first use; elsewhere they are linked).
@Suite struct StartupTests {
    static let lazyLoading: Bool = {
        #if os(Linux) && arch(x86_64)
        return true
        #else
        return false
        #endif
    }()

    @Test(.enabled(if: lazyLoading))
    func theBinaryDoesNotLinkFFmpeg() throws {
        let dynamic = try Subprocess.run("readelf", ["-d", Locations.avpipe]).stdoutText
        let needed = dynamic.split(separator: "\n").filter { $0.contains("(NEEDED)") }
        #expect(!needed.isEmpty)
        #expect(needed.allSatisfy { !$0.contains("libav") && !$0.contains("libswresample") && !$0.contains("SDL") },
                "FFmpeg or SDL became a startup dependency (a new FFmpeg call? run scripts/gen-ffmpeg-symbols): \(needed)")
    }

    @Test(.enabled(if: lazyLoading), arguments: [["--version"], ["--help"], ["encode", "--bitrate", "x"]])
    func startingUpLoadsNoFFmpegLibrary(arguments: [String]) throws {
        let result = try Subprocess.run(Locations.avpipe, arguments, environment: ["LD_DEBUG": "files"])
        #expect(result.stderrText.contains("calling init"), "LD_DEBUG output missing")
        #expect(!result.stderrText.contains("libavcodec"), "libavcodec was loaded")
    }

    @Test(.enabled(if: lazyLoading))
    func aRealJobLoadsFFmpegOnFirstUse() throws {
        let folder = TemporaryDirectory()
        try MediaFactory.tone(folder.file("in.wav"), seconds: 0.5)
        let result = try Subprocess.run(Locations.avpipe, ["probe", folder.file("in.wav")], environment: ["LD_DEBUG": "files"])
        #expect(result.status == 0)
        #expect(result.stderrText.contains("libavformat.so"))
    }
}
