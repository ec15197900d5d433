import Foundation
import Testing
import TestSupport

/// HLS uploaded with HTTP PUT to nginx's WebDAV location, checked on the server's disk, by
/// ffprobe reading it back over HTTP, and by two players: headless Chromium (native HLS in a
/// `<video>`) and GStreamer's playbin.
@Suite(.needsNginx, .serialized) struct HLSUploadTests {
    /// A 4 s movie with a keyframe every second (1 s segments).
    static func movie(_ folder: TemporaryDirectory) throws -> String {
        try DemuxMedia.movie(folder.file("m.mp4"), seconds: 4, videoArguments: ["-g", "25"])
    }

    /// The segment names `playlist` (on the server's disk) lists.
    static func segments(of playlist: String) throws -> [String] {
        try String(contentsOfFile: playlist, encoding: .utf8).split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") && !$0.isEmpty }
    }

    /// ffprobe's duration of the stream at `url`, read over HTTP.
    static func duration(_ url: String) throws -> Double? {
        let probe = try Subprocess.run("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", url], timeout: 30)
        return Double(probe.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Uploads `arguments`' stream to `name`/index.m3u8 and checks it is whole on the server.
    static func upload(_ server: NginxServer, _ name: String, _ arguments: [String]) throws {
        let result = try Subprocess.run(Locations.avpipe, arguments + ["--out", server.uploadURL("\(name)/index.m3u8")], timeout: 40)
        #expect(result.status == 0, "\(result.stderrText)")
        let playlist = server.uploads + "/\(name)/index.m3u8"
        let segments = try segments(of: playlist)
        #expect(segments.count == 4, "\(segments)")
        for segment in segments {
            let size = (try? FileManager.default.attributesOfItem(atPath: server.uploads + "/\(name)/\(segment)")[.size] as? Int) ?? 0
            #expect(size > 0, "\(segment) on the server")
        }
        #expect(try String(contentsOfFile: playlist, encoding: .utf8).contains("#EXT-X-ENDLIST"))
        let duration = try #require(try duration(server.uploadURL("\(name)/index.m3u8")))
        #expect(abs(duration - 4) < 0.15, "\(duration) s")
    }

    @Test func aVODStreamIsUploadedWhole() throws {
        let server = try NginxServer.started()
        let folder = TemporaryDirectory()
        try Self.upload(server, "vod", ["hls", try Self.movie(folder), "--segment", "1"])
    }

    @Test func aLiveStreamIsUploadedAsItGoes() throws {
        let server = try NginxServer.started()
        let folder = TemporaryDirectory()
        let start = Date()
        try Self.upload(server, "live", ["hls", try Self.movie(folder), "--segment", "1", "--live", "--window", "10", "--realtime"])
        #expect(Date().timeIntervalSince(start) >= 3.5)
    }

    @Test func anEncodeIsUploaded() throws {
        let server = try NginxServer.started()
        let folder = TemporaryDirectory()
        let movie = try DemuxMedia.movie(folder.file("m.mkv"), seconds: 4, videoCodec: "mpeg4")
        try Self.upload(server, "enc", ["encode", "--in", movie, "--segment", "1"])
    }

    /// nginx answers 405 to a PUT outside its WebDAV location; FFmpeg does not look at the answer,
    /// so reading the upload back is what tells.
    @Test func aRefusedUploadFails() throws {
        let server = try NginxServer.started()
        let folder = TemporaryDirectory()
        let result = try Subprocess.run(Locations.avpipe, ["hls", try Self.movie(folder), "--out", server.httpURL("nope/index.m3u8")], timeout: 30)
        #expect(result.status == 73 && result.stderrText.contains("does not serve back"), "\(result.stderrText)")
    }

    @Test func anUploadToNoServerFails() throws {
        let folder = TemporaryDirectory()
        let result = try Subprocess.run(Locations.avpipe, ["hls", try Self.movie(folder), "--out", "http://127.0.0.1:\(try freePort())/x/index.m3u8"],
                                        timeout: 30)
        #expect(result.status == 73 && result.stderrText.contains("connection refused"), "\(result.stderrText)")
    }

    /// The page is served by the same nginx; Chromium plays the uploaded playlist natively.
    @Test(.enabled("needs chromium and chromium-driver") { HeadlessBrowser.missingTool == nil }, arguments: [false, true])
    func chromiumPlaysTheUpload(live: Bool) throws {
        let server = try NginxServer.started()
        let folder = TemporaryDirectory()
        let name = live ? "live" : "vod"
        try Self.upload(server, name, ["hls", try Self.movie(folder), "--segment", "1"] + (live ? ["--live", "--window", "10", "--realtime"] : []))
        let page = """
            <!doctype html><html><body>
            <video src="/upload/\(name)/index.m3u8" autoplay muted playsinline></video>
            <script>document.querySelector('video').play().catch(e => { window.playError = 'play: ' + e; });</script>
            </body></html>
            """
        try server.serve(Data(page.utf8), at: "play.html")
        let state = try HeadlessBrowser.play(page: server.httpURL("play.html"), until: 3)
        #expect(state.error == nil, "\(state.error ?? "")")
        #expect(state.currentTime > 3, "played to \(state.currentTime) s")
        #expect(state.width == 320 && state.height == 240, "\(state.width)x\(state.height)")
    }

    @Test(.enabled("needs GStreamer with an H.264 decoder") { GStreamer.missing == nil })
    func gstreamerPlaysTheUpload() throws {
        let server = try NginxServer.started()
        let folder = TemporaryDirectory()
        try Self.upload(server, "vod", ["hls", try Self.movie(folder), "--segment", "1"])
        let played = try Subprocess.run("gst-launch-1.0", ["-m", "playbin", "uri=\(server.uploadURL("vod/index.m3u8"))",
                                                           "video-sink=fakesink", "audio-sink=fakesink"], timeout: 60)
        #expect(played.status == 0, "\(played.stderrText)")
        // Played to the end, the pictures decoded (a missing decoder is only a warning to playbin).
        #expect(played.stdoutText.contains("Got EOS"), "\(played.stdoutText.suffix(500))")
        #expect(!played.stdoutText.contains("missing-plugin"), "\(played.stdoutText.suffix(500))")
    }
}

/// GStreamer's command-line player and the decoders an H.264 + AAC HLS stream needs.
enum GStreamer {
    /// Why playbin cannot play H.264 + AAC here; nil when it can.
    static var missing: String? {
        guard Subprocess.isAvailable("gst-launch-1.0"), Subprocess.isAvailable("gst-inspect-1.0") else { return "gst-launch-1.0 is not installed" }
        let has = { (element: String) in (try? Subprocess.run("gst-inspect-1.0", ["--exists", element]))?.status == 0 }
        guard has("hlsdemux") || has("hlsdemux2") else { return "GStreamer has no HLS demuxer" }
        guard has("avdec_h264") || has("openh264dec") else { return "GStreamer has no H.264 decoder" }
        guard has("avdec_aac") || has("faad") || has("fdkaacdec") else { return "GStreamer has no AAC decoder" }
        return nil
    }
}
