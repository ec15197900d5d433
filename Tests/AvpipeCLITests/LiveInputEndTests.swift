import Foundation
import Testing
import TestSupport

/// A live RTMP input pulled from a private nginx, published by ffmpeg: the publisher stopping is
/// the stream's normal end (the output is kept, exit 0, a notice says the stream ended); the
/// server dying mid-stream fails the run (exit 66) but keeps what came; `--duration` stops a
/// stream copy as it stops an encode.
@Suite(.needsNginx, .serialized) struct LiveInputEndTests {
    /// ffmpeg publishing `movie` to `url` in real time, endlessly when `loop`.
    static func publish(_ movie: String, to url: String, loop: Bool) throws -> Process {
        let push = Process()
        push.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        push.arguments = ["ffmpeg", "-v", "error", "-re"] + (loop ? ["-stream_loop", "-1"] : []) + ["-i", movie, "-c", "copy", "-f", "flv", url]
        push.standardOutput = FileHandle.nullDevice
        push.standardError = FileHandle.nullDevice
        try push.run()
        return push
    }

    /// Waits until nginx has the publisher's first packets.
    static func waitUntilLive(_ url: String) throws {
        var probe = try avpipe(["probe", url, "--timeout", "2"])
        for _ in 0..<20 where probe.status != 0 {
            usleep(250_000)
            probe = try avpipe(["probe", url, "--timeout", "2"])
        }
        try #require(probe.status == 0, "the stream never came up: \(probe.stderrText)")
    }

    /// A movie with a keyframe every second, as a live stream has, and no B-frames: looped by the
    /// publisher, its times then go on rising (a B-frame stream's negative first decode time
    /// would step back at each loop, which an MP4 muxer refuses).
    static func movie(_ folder: TemporaryDirectory, seconds: Double) throws -> String {
        try DemuxMedia.movie(folder.file("m.mp4"), seconds: seconds, size: "160x120", videoArguments: ["-g", "25", "-bf", "0"])
    }

    /// Packets per stream kind (`video`/`audio` → count), as ffprobe reads them.
    static func packets(_ path: String) throws -> [String: Int] {
        let probe = try Subprocess.run("ffprobe", ["-v", "error", "-count_packets", "-show_entries", "stream=codec_type,nb_read_packets",
                                                   "-of", "csv=p=0", path])
        var counts: [String: Int] = [:]
        for line in probe.stdoutText.split(separator: "\n") {
            let fields = line.split(separator: ",")
            if fields.count == 2, let count = Int(fields[1]) { counts[String(fields[0])] = count }
        }
        return counts
    }

    /// The publisher ends its stream (nginx-rtmp tells the player with a "stream EOF" message only,
    /// which FFmpeg ignores: the connection stays open and silent): the copy ends there, whole.
    @Test func aPublisherStoppingEndsTheCopyNormally() throws {
        let server = try NginxServer.started()
        let folder = TemporaryDirectory()
        let url = server.rtmpURL("live", "ends")
        let push = try Self.publish(try Self.movie(folder, seconds: 5), to: url, loop: false)
        defer { kill(push.processIdentifier, SIGKILL); push.waitUntilExit() }
        try Self.waitUntilLive(url)
        let output = folder.file("o.ts")
        let pulled = try Subprocess.run(Locations.avpipe, ["remux", url, output, "--timeout", "2"], timeout: 60)
        #expect(pulled.status == 0, "\(pulled.stderrText)")
        #expect(pulled.stderrText.contains("the live stream ended"), "\(pulled.stderrText)")
        let packets = try Self.packets(output)
        // What came after joining, up to the 5 s end (25 pictures and ~47 AAC frames a second).
        #expect((10...130).contains(packets["video"] ?? 0) && (10...250).contains(packets["audio"] ?? 0), "\(packets)")
    }

    /// nginx dies mid-stream: the connection is lost (at once, not after a timeout), the run fails
    /// with exit 66 and says so, and the fragments received are kept, completed.
    @Test func aConnectionLostMidStreamFailsAndKeepsWhatCame() throws {
        let server = try NginxServer.started()
        let folder = TemporaryDirectory()
        let url = server.rtmpURL("live", "lost")
        let push = try Self.publish(try Self.movie(folder, seconds: 3), to: url, loop: true)
        defer { kill(push.processIdentifier, SIGKILL); push.waitUntilExit() }
        try Self.waitUntilLive(url)
        let output = folder.file("o.mp4")
        let running = try RunningProcess(Locations.avpipe, ["remux", url, output, "--fragmented", "--timeout", "5"], environment: [:])
        // Written in place, fragment by fragment: kill the server once some have come.
        let deadline = Date().addingTimeInterval(20)
        while (try? fileBytes(output).count) ?? 0 < 20_000, Date() < deadline { usleep(100_000) }
        server.kill()
        let result = try #require(running.finish(within: 30))
        #expect(result.status == 66, "\(result.stderrText)")
        #expect(result.stderrText.contains("the connection was lost") && result.stderrText.contains("kept in '\(output)'"), "\(result.stderrText)")
        #expect(!result.stderrText.contains("the live stream ended"), "\(result.stderrText)")
        let packets = try Self.packets(output)
        #expect((packets["video"] ?? 0) >= 10 && (packets["audio"] ?? 0) >= 10, "\(packets)")
    }

    /// `--duration` stops a copy of an endless stream, as it stops an encode.
    @Test func aDurationStopsAStreamCopy() throws {
        let server = try NginxServer.started()
        let folder = TemporaryDirectory()
        let url = server.rtmpURL("live", "cut")
        let push = try Self.publish(try Self.movie(folder, seconds: 3), to: url, loop: true)
        defer { kill(push.processIdentifier, SIGKILL); push.waitUntilExit() }
        try Self.waitUntilLive(url)
        let output = folder.file("o.mp4")
        let copied = try Subprocess.run(Locations.avpipe, ["encode", "--in", url, "--out", output, "--duration", "2", "--video-codec", "copy"],
                                        timeout: 60)
        #expect(copied.status == 0, "\(copied.stderrText)")
        // Where each track ends on the output's timeline (nginx starts a joining player's pictures
        // at a keyframe, so they may start up to a second after the sound).
        let probe = try Subprocess.run("ffprobe", ["-v", "error", "-show_entries", "stream=codec_type,start_time,duration", "-of", "csv=p=0", output])
        let ends = Dictionary(probe.stdoutText.split(separator: "\n").compactMap { line -> (String, Double)? in
            let fields = line.split(separator: ",")
            guard fields.count == 3, let start = Double(fields[1]), let duration = Double(fields[2]) else { return nil }
            return (String(fields[0]), start + duration)
        }, uniquingKeysWith: { $1 })
        #expect(abs((ends["video"] ?? 0) - 2) < 0.25 && abs((ends["audio"] ?? 0) - 2) < 0.25, "\(probe.stdoutText)")
    }
}

/// `encode --video-codec copy --duration` of a file keeps the packets ffmpeg's `-t` keeps.
@Suite struct CopyDurationTests {
    @Test func aCopiedVideoTrackIsCutWhereFFmpegCutsIt() throws {
        let folder = TemporaryDirectory()
        let movie = try DemuxMedia.movie(folder.file("m.mp4"), seconds: 3, size: "160x120", videoArguments: ["-bf", "0"])
        let output = folder.file("o.mp4"), reference = folder.file("ffmpeg.mp4")
        let copied = try avpipe(["encode", "--in", movie, "--out", output, "--video-codec", "copy", "--duration", "1.3"])
        #expect(copied.status == 0, "\(copied.stderrText)")
        try MediaFactory.ffmpeg(["-v", "error", "-i", movie, "-t", "1.3", "-c:v", "copy", "-an", reference])
        let ours = try LiveInputEndTests.packets(output)["video"], theirs = try LiveInputEndTests.packets(reference)["video"]
        #expect(ours != nil && ours == theirs, "avpipe kept \(String(describing: ours)) pictures, ffmpeg \(String(describing: theirs))")
    }
}
