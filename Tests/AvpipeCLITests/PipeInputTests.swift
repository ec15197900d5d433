import Foundation
import Testing
import TestSupport

/// Inputs that can be read once only: stdin (`-`, `pipe:`, `/dev/stdin`) and named pipes. They are
/// read through one context, completely (they used to lose what probing had read, silently), and
/// what needs seeking (an MP4 with its index at the end) is refused with a reason. Every run is
/// under `timeout 30`, and so is each shell line: a hang fails the test instead of stalling the suite.
@Suite struct PipeInputTests {
    enum Input: String, CaseIterable {
        case mp3, flac, ts, fragmentedMP4 = "frag.mp4", mp4MoovFirst = "faststart.mp4"

        func make(_ path: String) throws -> String {
            switch self {
            case .mp3: try MediaFactory.tone(path, seconds: 10, channels: 1, codec: "libmp3lame")
            case .flac: try MediaFactory.tone(path, seconds: 10, codec: "flac")
            case .ts: try DemuxMedia.movie(path, seconds: 10)
            case .fragmentedMP4: try DemuxMedia.movie(path, seconds: 10, extraArguments: ["-movflags", "+frag_keyframe+empty_moov"])
            case .mp4MoovFirst: try DemuxMedia.movie(path, seconds: 10, extraArguments: ["-movflags", "+faststart"])
            }
        }
    }

    /// Runs a shell line (paths are test folders without spaces); one still running after 30 s is
    /// killed, with everything it started, and fails the test.
    static func shell(_ line: String) throws -> ProcessResult {
        try Subprocess.run("sh", ["-c", line], timeout: 30)
    }

    static func pcm(_ wav: String) throws -> [UInt8] {
        let result = try Subprocess.run("ffmpeg", ["-v", "error", "-i", wav, "-f", "s16le", "-"])
        guard result.status == 0 else { throw TestFailure("ffmpeg could not read \(wav): \(result.stderrText)") }
        return [UInt8](result.stdout)
    }

    @Test(arguments: Input.allCases)
    func decodeFromStdinAndAFIFOEqualsDecodingTheFile(_ input: Input) throws {
        let folder = TemporaryDirectory()
        let file = try input.make(folder.file("in.\(input.rawValue)"))
        let avpipe = Locations.avpipe
        #expect(try Self.shell("timeout 30 \(avpipe) decode \(file) --out \(folder.file("file.wav"))").status == 0)
        let reference = try Self.pcm(folder.file("file.wav"))
        #expect(reference.count > 10 * 44_100, "the reference decode holds the whole file")

        for (name, stdinName) in [("dash", "-"), ("pipe", "pipe:"), ("devstdin", "/dev/stdin")] {
            let out = folder.file("\(name).wav")
            let result = try Self.shell("cat \(file) | timeout 30 \(avpipe) decode \(stdinName) --out \(out)")
            #expect(result.status == 0, "\(stdinName): \(result.stderrText)")
            #expect(try Self.pcm(out) == reference, "decoding \(input) from \(stdinName) differs from decoding the file")
        }

        let fifo = folder.file("fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        // The writer's open blocks until a reader opens the FIFO: under `timeout` with it, so an
        // avpipe that never opens it cannot leave the writer behind.
        let result = try Self.shell("timeout 30 sh -c 'cat \(file) > \(fifo)' & timeout 30 \(avpipe) decode \(fifo) --out \(folder.file("fifo.wav")); status=$?; wait; exit $status")
        #expect(result.status == 0, "named pipe: \(result.stderrText)")
        #expect(try Self.pcm(folder.file("fifo.wav")) == reference, "decoding \(input) from a named pipe differs")
    }

    /// Two tracks from one pipe: the tracks share the one context, and each gets all its packets.
    @Test func demuxAndRemuxOfAPipedTransportStreamKeepEveryPacket() throws {
        let folder = TemporaryDirectory()
        let ts = try DemuxMedia.movie(folder.file("in.ts"), seconds: 10)
        let avpipe = Locations.avpipe
        #expect(try Self.shell("timeout 30 \(avpipe) demux \(ts) --audio \(folder.file("f.aac")) --video \(folder.file("f.h264"))").status == 0)
        let demux = try Self.shell("cat \(ts) | timeout 30 \(avpipe) demux - --audio \(folder.file("p.aac")) --video \(folder.file("p.h264"))")
        #expect(demux.status == 0, "\(demux.stderrText)")
        #expect(try fileBytes(folder.file("p.aac")) == fileBytes(folder.file("f.aac")))
        #expect(try fileBytes(folder.file("p.h264")) == fileBytes(folder.file("f.h264")))

        let remux = try Self.shell("cat \(ts) | timeout 30 \(avpipe) remux - \(folder.file("p.mp4"))")
        #expect(remux.status == 0, "\(remux.stderrText)")
        try MediaFactory.ffmpeg(["-v", "error", "-i", ts, "-c", "copy", folder.file("ff.mp4")])
        for stream in ["a:0", "v:0"] {
            let ours = try PartialDownload.packets(folder.file("p.mp4"), stream: stream)
            let theirs = try PartialDownload.packets(folder.file("ff.mp4"), stream: stream)
            #expect(ours.map(\.size) == theirs.map(\.size), "\(stream): \(ours.count) packets vs ffmpeg's \(theirs.count)")
        }
    }

    /// An MP4 whose index follows its media data cannot be read from a pipe: a clear error, at once.
    @Test func anMP4WithItsIndexAtTheEndIsRefusedWithAReason() throws {
        let folder = TemporaryDirectory()
        let mp4 = try DemuxMedia.movie(folder.file("in.mp4"), seconds: 4)
        for command in ["decode - --out \(folder.file("o.wav"))", "remux - \(folder.file("o.mp4"))"] {
            let result = try Self.shell("cat \(mp4) | timeout 30 \(Locations.avpipe) \(command)")
            #expect(result.status == 69, "\(command): \(result.stderrText)")
            #expect(result.stderrText.contains("index (moov) comes after the media data"), "\(result.stderrText)")
        }
        #expect(!fileExists(folder.file("o.wav")) && !fileExists(folder.file("o.mp4")))
    }

    /// The guard itself: a shell line that would block forever (a reader of a FIFO nobody writes,
    /// in a pipeline) is killed with its whole pipeline at the timeout, and the call throws.
    @Test func aHangingLineIsKilledAtItsTimeout() throws {
        let folder = TemporaryDirectory()
        let fifo = folder.file("never")
        #expect(mkfifo(fifo, 0o600) == 0)
        let started = ContinuousClock.now
        #expect(throws: TestFailure.self) { try Subprocess.run("sh", ["-c", "cat \(fifo) | cat"], timeout: 1) }
        #expect(ContinuousClock.now - started < .seconds(10), "took \(ContinuousClock.now - started)")
    }

    @Test func aTerminalOnStdinIsRefused() throws {
        guard Subprocess.isAvailable("script") else { print("notice: no 'script' command; terminal-stdin case skipped"); return }
        let result = try Self.shell("script -qec '\(Locations.avpipe) probe -' /dev/null < /dev/null")
        #expect(result.stdoutText.contains("standard input is a terminal"), "\(result.stdoutText)")
    }
}
