import Foundation
import Testing
import TestSupport

/// An output exists only once complete, even when the process is killed outright: on Linux it is
/// written as an unnamed file (O_TMPFILE) and linked into place at the end, so SIGKILL in the
/// middle leaves the folder exactly as it was. Hidden temporary files of dead processes (from a
/// filesystem without unnamed files) are removed by the next run in that folder.
@Suite struct KillSafetyTests {
    struct Job: Sendable, CustomTestStringConvertible {
        let name: String
        /// Makes the inputs in the folder and returns avpipe's arguments and, for a FIFO input, the
        /// file to trickle into it.
        let arrange: @Sendable (TemporaryDirectory) throws -> (arguments: [String], fifoFeed: (fifo: String, source: String)?)
        var testDescription: String { name }
    }

    static let jobs: [Job] = [
        Job(name: "encode --realtime") { folder in
            let wav = try MediaFactory.tone(folder.file("in.wav"), seconds: 20)
            return (["encode", "--in", wav, "--out", folder.file("out.m4a"), "--realtime"], nil)
        },
        Job(name: "mux --realtime") { folder in
            let (video, audio) = try Self.elementaryStreams(in: folder)
            return (["mux", "--video", video, "--audio", audio, "--out", folder.file("out.mp4"), "--realtime"], nil)
        },
        Job(name: "remux from a named pipe that stalls") { folder in
            let source = folder.file("source.ts")
            try DemuxMedia.movie(source, seconds: 4, extraArguments: ["-f", "mpegts"])
            // Outside the folder that is compared: reading a FIFO to snapshot it would block.
            let fifo = "\(folder.path)-in.fifo"
            unlink(fifo)
            guard mkfifo(fifo, 0o600) == 0 else { throw TestFailure("mkfifo failed") }
            return (["remux", fifo, folder.file("out.mp4")], (fifo, source))
        },
    ]

    static func elementaryStreams(in folder: TemporaryDirectory) throws -> (String, String) {
        let video = folder.file("in.h264"), audio = folder.file("in.aac")
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "testsrc=size=160x90:rate=25:duration=20",
                                 "-c:v", "libx264", "-preset", "ultrafast", video])
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "sine=duration=20", "-c:a", "aac", audio])
        return (video, audio)
    }

    @Test(arguments: jobs)
    func sigkillLeavesTheFolderAsItWas(_ job: Job) throws {
        let folder = TemporaryDirectory()
        let (arguments, feed) = try job.arrange(folder)
        let before = FolderSnapshot(folder.path)
        let process = try RunningProcess(Locations.avpipe, arguments, environment: [:])
        // A FIFO input: half the stream now, then the writer stalls with the pipe still open.
        let feeder = feed.map { feed in
            Thread {
                guard let handle = FileHandle(forWritingAtPath: feed.fifo), let bytes = FileManager.default.contents(atPath: feed.source) else { return }
                handle.write(bytes.prefix(bytes.count / 2))
                Thread.sleep(forTimeInterval: 4)
                try? handle.close()
            }
        }
        feeder?.start()
        Thread.sleep(forTimeInterval: 1.5)
        #expect(process.isRunning, "still writing when killed")
        #expect(FolderSnapshot(folder.path).names == before.names, "nothing named appears while the output is written")
        kill(process.identifier, SIGKILL)
        _ = process.finish(within: 5)
        #expect(FolderSnapshot(folder.path) == before, "SIGKILL left: \(FolderSnapshot(folder.path).names)")
        if let feed { unlink(feed.fifo) }
    }

    /// `.NAME.avpipe-PID-XXXXXX` of a process that has ended is removed by the next output made in
    /// its folder; one of a live process is left alone.
    @Test func staleTemporaryFilesOfDeadProcessesAreRemoved() throws {
        let folder = TemporaryDirectory()
        let dead = Process()
        dead.executableURL = URL(fileURLWithPath: "/bin/true")
        try dead.run()
        dead.waitUntilExit()
        let stale = folder.file(".out.m4a.avpipe-\(dead.processIdentifier)-abc123")
        let live = folder.file(".other.m4a.avpipe-\(getpid())-xyz789")
        for path in [stale, live] { #expect(FileManager.default.createFile(atPath: path, contents: Data([1, 2, 3]))) }
        let wav = try MediaFactory.tone(folder.file("in.wav"), seconds: 1)
        let result = try avpipe(["encode", "--in", wav, "--out", folder.file("out.m4a")])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(!fileExists(stale), "the dead process's temporary file is removed")
        #expect(fileExists(live), "a live process's temporary file is kept")
    }
}
