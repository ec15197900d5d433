import Foundation
import Synchronization
import Testing
import TestSupport
@testable import AVPipeline

/// `Muxer.stop()`: a clean end from another thread finishes the output and `run()` returns.
@Suite struct MuxerStopTests {
    /// A 20 s movie pushed in real time into a regular MP4, stopped from another thread once a
    /// second of it is written: `run()` returns its summary, and the file is complete (indexed,
    /// read whole by ffprobe) with the pictures written so far, fewer than the movie's 500.
    @Test func stoppingARealTimeMuxFinishesTheFile() async throws {
        let folder = TemporaryDirectory()
        let movie = try DemuxMedia.movie(folder.file("in.mp4"), seconds: 20, size: "160x120")
        let output = folder.file("out.mp4")
        var options = Muxer.Options()
        options.realtime = true
        let muxer = try Muxer(path: output, options: options)
        let demuxer = try Demuxer(path: movie)
        try muxer.addVideo(try demuxer.videoTrack())
        let control = muxer.control
        // The stop waits for what was written (not for a time), so a loaded machine cannot
        // make it come too early; pacing keeps the other 19 s from being written meanwhile. It
        // comes from a thread of its own: the paced muxer blocks a thread of the task pool, which
        // a busy test run may have no other free thread of to run a stopping task on.
        let written = WrittenMicroseconds()
        let stopper = Thread {
            while written.value.load(ordering: .acquiring) < 1_000_000 { usleep(10_000) }
            control.stop()
        }
        stopper.start()
        let summary = try await muxer.run { position in
            written.value.store(position.converted(to: Rational(1, 1_000_000)).value, ordering: .releasing)
        }
        #expect(control.isStopped)

        let probe = try Subprocess.run("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                                                   "stream=nb_read_frames", "-of", "csv=p=0", output])
        #expect(probe.stderrText.isEmpty, "\(probe.stderrText)")
        let pictures = try #require(Int(probe.stdoutText.split(separator: "\n").first ?? ""), "\(probe.stdoutText)")
        #expect(pictures >= 25 && pictures < 500, "\(pictures) pictures")
        #expect(pictures == summary.tracks[0].packets)
        // Indexed at the front like any finished faststart file: no temporary left beside it.
        #expect(try ContainerOracles.topLevelBoxes(output).map(\.type).contains("moov"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["in.mp4", "out.mp4"])
    }
}

/// How far the muxer has written, for the task that stops it.
private final class WrittenMicroseconds: Sendable {
    let value = Atomic<Int64>(0)
}
