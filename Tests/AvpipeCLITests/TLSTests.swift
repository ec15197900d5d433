import Foundation
import Testing
import TestSupport

/// Connections over TLS check the server's certificate (FFmpeg's own default checks nothing):
/// private nginx HTTPS servers with self-signed certificates are refused until `--ca-file` names
/// their authority or `--insecure` is given, for an input, the segments an https playlist names
/// (which FFmpeg's HLS demuxer would open unchecked) and an HLS upload.
@Suite(.needsNginx, .serialized) struct TLSTests {
    static func movie(_ folder: TemporaryDirectory) throws -> String {
        try DemuxMedia.movie(folder.file("m.mp4"), seconds: 2, size: "160x120", videoArguments: ["-g", "25"])
    }

    /// `decode INPUT` to a WAV and a Y4M in `folder`: the result and, on success, both files' bytes.
    static func decoded(_ input: String, _ folder: TemporaryDirectory, _ name: String, _ extra: [String] = []) throws -> (ProcessResult, Data?) {
        let (wav, y4m) = (folder.file("\(name).wav"), folder.file("\(name).y4m"))
        let result = try avpipe(["decode", input, "--out", wav, "--video", y4m] + extra)
        guard result.status == 0 else { return (result, nil) }
        return (result, try Data(contentsOf: URL(fileURLWithPath: wav)) + Data(contentsOf: URL(fileURLWithPath: y4m)))
    }

    @Test func anHTTPSInputIsReadOnlyWhenItsCertificateIsTrusted() throws {
        let server = try NginxServer.started(tlsServers: 1)
        let folder = TemporaryDirectory()
        let movie = try Self.movie(folder)
        try server.serveFile(movie, at: "media/m.mp4")
        let url = server.httpsURL("media/m.mp4")

        let refused = try avpipe(["probe", url])
        #expect(refused.status == 66, "\(refused.stderrText)")
        #expect(refused.stderrText.contains("certificate was not accepted") && refused.stderrText.contains("--ca-file"), "\(refused.stderrText)")

        let local = try Self.decoded(movie, folder, "local")
        let trusted = try Self.decoded(url, folder, "trusted", ["--ca-file", server.certificate()])
        #expect(trusted.0.status == 0, "\(trusted.0.stderrText)")
        #expect(trusted.1 == local.1 && local.1 != nil, "the bytes differ from the local file's")

        let insecure = try avpipe(["probe", url, "--insecure"])
        #expect(insecure.status == 0, "\(insecure.stderrText)")

        let both = try avpipe(["probe", url, "--insecure", "--ca-file", server.certificate()])
        #expect(both.status == 64, "\(both.stderrText)")
    }

    /// The playlist is on server 0, its segments on server 1: trusting server 0 alone must not
    /// let the segments through unchecked.
    @Test func theSegmentsAnHTTPSPlaylistNamesAreCheckedToo() throws {
        let server = try NginxServer.started(tlsServers: 2)
        let folder = TemporaryDirectory()
        let movie = try Self.movie(folder)
        let hls = server.root + "/hls"
        try FileManager.default.createDirectory(atPath: hls, withIntermediateDirectories: true)
        try MediaFactory.ffmpeg(["-v", "error", "-i", movie, "-c", "copy", "-f", "hls", "-hls_time", "1",
                                 "-hls_playlist_type", "vod", hls + "/index.m3u8"])
        let playlist = try String(contentsOfFile: hls + "/index.m3u8", encoding: .utf8)
        let elsewhere = playlist.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasSuffix(".ts") ? server.httpsURL("hls/\($0)", server: 1) : String($0) }.joined(separator: "\n")
        try elsewhere.write(toFile: hls + "/elsewhere.m3u8", atomically: true, encoding: .utf8)
        let url = server.httpsURL("hls/elsewhere.m3u8", server: 0)

        let firstOnly = try Self.decoded(url, folder, "first", ["--ca-file", server.certificate(0)])
        #expect(firstOnly.0.status != 0, "segments from an untrusted server were read: \(firstOnly.0.stderrText)")

        let bundle = folder.file("both.pem")
        try (Data(contentsOf: URL(fileURLWithPath: server.certificate(0))) + Data(contentsOf: URL(fileURLWithPath: server.certificate(1))))
            .write(to: URL(fileURLWithPath: bundle))
        let local = try Self.decoded(hls + "/index.m3u8", folder, "local", ["--allow-indirection"])
        let trusted = try Self.decoded(url, folder, "trusted", ["--ca-file", bundle])
        #expect(trusted.0.status == 0, "\(trusted.0.stderrText)")
        #expect(trusted.1 == local.1 && local.1 != nil, "the bytes differ from the local playlist's")
    }

    @Test func anHTTPSUploadChecksTheCertificate() throws {
        let server = try NginxServer.started(tlsServers: 1)
        let folder = TemporaryDirectory()
        let movie = try Self.movie(folder)
        let refused = try Subprocess.run(Locations.avpipe, ["hls", movie, "--segment", "1", "--out", server.httpsURL("upload/a/index.m3u8")],
                                         timeout: 30)
        #expect(refused.status == 73 && refused.stderrText.contains("certificate was not accepted"), "\(refused.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: server.uploads + "/a"), "nothing is sent to a server whose certificate was refused")

        let trusted = try Subprocess.run(Locations.avpipe, ["hls", movie, "--segment", "1", "--ca-file", server.certificate(),
                                                             "--out", server.httpsURL("upload/b/index.m3u8")], timeout: 30)
        #expect(trusted.status == 0, "\(trusted.stderrText)")
        let uploaded = try String(contentsOfFile: server.uploads + "/b/index.m3u8", encoding: .utf8)
        #expect(uploaded.contains("#EXT-X-ENDLIST") && uploaded.components(separatedBy: ".ts").count - 1 == 2, "\(uploaded)")
    }
}
