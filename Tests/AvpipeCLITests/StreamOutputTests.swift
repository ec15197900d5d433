import Foundation
import Testing
import TestSupport

/// A named pipe, a device node and `/dev/stdout` are written into as a stream, as ffmpeg writes
/// them, with or without `--overwrite`: never replaced by a regular file (a FIFO's reader got
/// nothing, and `--out /dev/null -y` run as root would have broken the system). Only the test's
/// own FIFOs and device nodes are used, so a regression cannot touch the real `/dev/null`.
@Suite struct StreamOutputTests {
    /// Runs avpipe with `arguments` while `cat` reads `fifo` into `copy`; the exit status is avpipe's.
    /// A reader still blocked 5 s after avpipe ended (on a FIFO that was replaced, so that nobody
    /// will ever open it for writing) is killed: SIGKILL, since a signal mask inherited from the
    /// test process may block the others.
    static func writeThroughFIFO(_ arguments: [String], fifo: String, copy: String) throws -> ProcessResult {
        let quoted = ([Locations.avpipe] + arguments).map { "'\($0)'" }.joined(separator: " ")
        let script = """
            cat '\(fifo)' > '\(copy)' & reader=$!
            \(quoted); status=$?
            for i in $(seq 50); do kill -0 $reader 2>/dev/null || break; sleep 0.1; done
            kill -9 $reader 2>/dev/null; wait; exit $status
            """
        return try Subprocess.run("sh", ["-c", script], timeout: 60)
    }

    static func fileType(_ path: String) -> mode_t? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return info.st_mode & S_IFMT
    }

    static func makeFIFO(_ path: String) throws {
        guard mkfifo(path, 0o644) == 0 else { throw TestFailure("mkfifo \(path): \(String(cString: strerror(errno)))") }
    }

    @Test func aFIFOsReaderGetsWhatAFileGets() throws {
        let folder = TemporaryDirectory()
        let movie = try DemuxMedia.movie(folder.file("in.mp4"), seconds: 2)
        let wav = try MediaFactory.tone(folder.file("tone.wav"), seconds: 2)
        // The second job goes without --overwrite: writing into a FIFO replaces nothing.
        let jobs: [(name: String, arguments: [String], ext: String)] = [
            ("encode AAC", ["encode", "--in", wav, "--out"], "aac"),
            ("decode WAV", ["decode", movie, "--out"], "wav"),
            ("remux MPEG-TS", ["remux", movie], "ts"),
            ("remux Matroska", ["remux", movie], "mkv"),
        ]
        for (index, job) in jobs.enumerated() {
            let reference = folder.file("file.\(job.ext)")
            let toFile = try avpipe(job.arguments + [reference])
            #expect(toFile.status == 0, "\(job.name): \(toFile.stderrText)")
            let fifo = folder.file("fifo.\(job.ext)"), copy = folder.file("read.\(job.ext)")
            try Self.makeFIFO(fifo)
            let streamed = try Self.writeThroughFIFO(job.arguments + [fifo] + (index == 1 ? [] : ["-y"]), fifo: fifo, copy: copy)
            #expect(streamed.status == 0, "\(job.name): \(streamed.stderrText)")
            #expect(Self.fileType(fifo) == S_IFIFO, "\(job.name): the FIFO was replaced")
            switch job.ext {
            case "wav":
                // A WAV header's sizes cannot be written back into a pipe: as ffmpeg's, they say "unknown".
                #expect(try StandardOutputTests.samples(copy) == StandardOutputTests.samples(reference), "\(job.name): the samples differ")
            case "mkv":
                // Into a file, Matroska goes back for its cues and duration: the packets are the same.
                for stream in ["v:0", "a:0"] {
                    let fileHashes = try Probe.packetHashes(reference, stream: stream, entries: "pts")
                    let readHashes = try Probe.packetHashes(copy, stream: stream, entries: "pts")
                    #expect(!fileHashes.isEmpty && readHashes == fileHashes, "\(job.name) \(stream): the packets differ")
                }
            default:
                #expect(try fileBytes(copy) == fileBytes(reference), "\(job.name): the reader got other bytes than the file")
            }
        }
        #expect(folder.contents().allSatisfy { !$0.hasPrefix(".") }, "temporary files left: \(folder.contents())")
    }

    /// An MP4 whose index is written at the end cannot go into a pipe: refused before anything is
    /// written (ffmpeg: "muxer does not support non seekable output"), the FIFO left as it is.
    @Test func anMP4ThatNeedsSeekingIsRefusedForAFIFO() throws {
        let folder = TemporaryDirectory()
        let movie = try DemuxMedia.movie(folder.file("in.mp4"), seconds: 1)
        let wav = try MediaFactory.tone(folder.file("tone.wav"), seconds: 1)
        let fifo = folder.file("fifo.mp4")
        try Self.makeFIFO(fifo)
        for arguments in [["remux", movie, fifo, "-y"], ["encode", "--in", wav, "--out", fifo, "--format", "m4a", "-y"]] {
            let result = try Subprocess.run(Locations.avpipe, arguments, timeout: 20)
            #expect(result.status == 64 && result.stderrText.contains("fragmented"), "\(arguments[0]): \(result.stderrText)")
            #expect(Self.fileType(fifo) == S_IFIFO)
        }
        // Fragmented, it streams.
        let fragmented = try Self.writeThroughFIFO(["remux", movie, fifo, "--fragmented"], fifo: fifo, copy: folder.file("read.mp4"))
        #expect(fragmented.status == 0, "\(fragmented.stderrText)")
        #expect(try Probe.packetHashes(folder.file("read.mp4"), stream: "v:0") == Probe.packetHashes(movie, stream: "v:0"))
    }

    /// A device node (the test's own copy of /dev/null: character device 1,3) stays a device.
    @Test func aDeviceNodeStaysADevice() throws {
        let folder = TemporaryDirectory()
        let movie = try DemuxMedia.movie(folder.file("in.mp4"), seconds: 1)
        let wav = try MediaFactory.tone(folder.file("tone.wav"), seconds: 1)
        let node = folder.file("null")
        let device = dev_t((1 << 8) | 3)  // makedev(1, 3), a macro Swift cannot import
        guard mknod(node, S_IFCHR | 0o666, device) == 0 else {
            print("notice: StreamOutputTests: cannot make a device node here (\(String(cString: strerror(errno)))): skipped")
            return
        }
        let before = folder.contents()
        for arguments in [["encode", "--in", wav, "--out", node, "--format", "adts", "-y"],
                          ["decode", movie, "--out", node, "--format", "wav", "-y"],
                          ["decode", movie, "--out", node, "--format", "flac"],
                          ["remux", movie, node, "--format", "mkv", "-y"]] {
            let result = try Subprocess.run(Locations.avpipe, arguments, timeout: 20)
            #expect(result.status == 0, "\(arguments): \(result.stderrText)")
            var info = stat()
            #expect(lstat(node, &info) == 0 && (info.st_mode & S_IFMT) == S_IFCHR && info.st_rdev == device,
                    "\(arguments): the device node was replaced")
            #expect(folder.contents() == before, "\(arguments): \(folder.contents())")
        }
    }

    /// `/dev/stdout` is whatever standard output is: a pipe, or a file the shell opened. That file
    /// is written as ffmpeg writes it; the link in /dev is never replaced.
    @Test func devStdoutIsStandardOutput() throws {
        let folder = TemporaryDirectory()
        let wav = try MediaFactory.tone(folder.file("tone.wav"), seconds: 1)
        let reference = folder.file("file.aac")
        #expect(try avpipe(["encode", "--in", wav, "--out", reference]).status == 0)
        let command = "'\(Locations.avpipe)' encode --in '\(wav)' --out /dev/stdout --format adts"
        for (name, script) in [("a pipe", "\(command) | cat > '\(folder.file("piped.aac"))'"),
                               ("a file", "\(command) > '\(folder.file("redirected.aac"))'")] {
            let result = try Subprocess.run("bash", ["-o", "pipefail", "-c", script], timeout: 30)
            #expect(result.status == 0, "\(name): \(result.stderrText)")
        }
        #expect(try fileBytes(folder.file("piped.aac")) == fileBytes(reference))
        #expect(try fileBytes(folder.file("redirected.aac")) == fileBytes(reference))
        #expect(Self.fileType("/dev/stdout") == S_IFLNK)
    }
}
