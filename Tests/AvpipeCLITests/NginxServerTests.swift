import Foundation
import Testing
import TestSupport

/// The test server itself: a file is served over HTTP, a PUT lands on disk, and what ffmpeg pushes
/// to the `record` application is written as FLV — so a failing network test means avpipe, not the server.
@Suite(.needsNginx) struct NginxServerTests {
    @Test func servesUploadsAndRecords() throws {
        let server = try NginxServer.started()
        let folder = TemporaryDirectory()
        let movie = try DemuxMedia.movie(folder.file("m.mp4"), seconds: 1)
        try server.serveFile(movie, at: "media/m.mp4")
        let served = try Subprocess.run("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", server.httpURL("media/m.mp4")])
        #expect(served.status == 0 && Double(served.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)).map { abs($0 - 1) < 0.1 } == true)
        let put = try Subprocess.run("curl", ["-sf", "-T", movie, server.uploadURL("a/b/m.mp4")])
        #expect(put.status == 0 && fileSize(server.uploads + "/a/b/m.mp4") == fileSize(movie))
        let push = try Subprocess.run("ffmpeg", ["-v", "error", "-re", "-i", movie, "-c", "copy", "-f", "flv", server.rtmpURL("record", "test")])
        #expect(push.status == 0, "\(push.stderrText)")
        server.stop()
        let recorded = try Subprocess.run("ffprobe", ["-v", "error", "-count_packets", "-show_entries", "stream=nb_read_packets",
                                                      "-of", "csv=p=0", server.recordings + "/test.flv"])
        #expect(recorded.status == 0 && !recorded.stdoutText.isEmpty, "\(recorded.stderrText)")
    }
}
