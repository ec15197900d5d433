import Foundation
import Testing
import TestSupport

/// Passwords, stream keys, SRT passphrases and tokens never reach stdout, stderr or the files
/// written, quiet or verbose (`-v` passes FFmpeg's own log through), while the message still says
/// which URL failed.
@Suite struct SecretsCLITests {
    static let password = "s3cretPW"
    static let streamKey = "sk_live_0123456789abcdef"
    static let passphrase = "verysecretpassphrase"
    static let token = "tok3nSecretValue"

    /// What must not appear: each secret, and any run of the stream key past what redaction shows.
    static let secrets = [password, streamKey, String(streamKey.dropFirst(4)), passphrase, token]

    static func leaks(_ text: String) -> [String] { secrets.filter { text.contains($0) } }

    static func movie(_ folder: TemporaryDirectory, seconds: Double = 1) throws -> String {
        try DemuxMedia.movie(folder.file("m.mp4"), seconds: seconds, size: "160x120")
    }

    /// Each form of the issue, at an address where nothing listens: the error names the URL, the
    /// secrets hidden.
    @Test(arguments: [false, true])
    func failingNetworkURLsAreNamedWithoutTheirSecrets(verbose: Bool) throws {
        let folder = TemporaryDirectory()
        let movie = try Self.movie(folder)
        let port = try freePort()
        let cases: [(arguments: [String], shown: String)] = [
            (["encode", "--in", movie, "--out", "rtmp://bob:\(Self.password)@127.0.0.1:\(port)/live/\(Self.streamKey)"],
             "rtmp://bob:***@127.0.0.1:\(port)/live/sk_l…"),
            (["remux", movie, "rtmp://127.0.0.1:\(port)/live/\(Self.streamKey)"], "rtmp://127.0.0.1:\(port)/live/sk_l…"),
            (["hls", movie, "--out", "http://bob:\(Self.password)@127.0.0.1:\(port)/up/x.m3u8"], "http://bob:***@127.0.0.1:\(port)/up/x.m3u8"),
            (["probe", "http://bob:\(Self.password)@127.0.0.1:\(port)/x.mp4"], "http://bob:***@127.0.0.1:\(port)/x.mp4"),
            (["probe", "--json", "https://127.0.0.1:\(port)/x.mp4?token=\(Self.token)"], "https://127.0.0.1:\(port)/x.mp4?token=***"),
            (["decode", "rtmp://127.0.0.1:\(port)/live/\(Self.streamKey)", folder.file("o.wav")], "rtmp://127.0.0.1:\(port)/live/sk_l…"),
            (["encode", "--in", movie, "--out", "srt://127.0.0.1:\(port)?passphrase=\(Self.passphrase)&mode=caller"],
             "srt://127.0.0.1:\(port)?passphrase=***&mode=caller"),
        ]
        for (arguments, shown) in cases {
            let result = try Subprocess.run(Locations.avpipe, arguments + (verbose ? ["-v"] : []), timeout: 30)
            let output = result.stdoutText + result.stderrText
            #expect(result.status != 0, "\(arguments)")
            #expect(Self.leaks(output).isEmpty, "\(arguments): \(output)")
            #expect(result.stderrText.contains(shown), "\(arguments): \(result.stderrText)")
        }
    }

    /// A push that connects, then loses its server: the messages about the lost connection, the
    /// retries and the local copy name the stream without its key, and the copy holds no secret.
    @Test(.needsNginx, arguments: [false, true])
    func aPushThatFailsAfterConnectingKeepsTheKeySecret(verbose: Bool) throws {
        let server = try NginxServer.started()
        let folder = TemporaryDirectory()
        let movie = try Self.movie(folder, seconds: 4)
        let copy = folder.file("local.mp4")
        DispatchQueue.global().asyncAfter(deadline: .now() + 1) { server.kill() }
        let url = "rtmp://bob:\(Self.password)@127.0.0.1:\(server.rtmpPort)/record/\(Self.streamKey)"
        let result = try Subprocess.run(Locations.avpipe, ["remux", movie, url, "--keep", copy, "--reconnect", "1"] + (verbose ? ["-v"] : []),
                                        timeout: 40)
        #expect(result.status == 73, "\(result.stderrText)")
        #expect(result.stderrText.contains("connection"), "\(result.stderrText)")
        #expect(Self.leaks(result.stdoutText + result.stderrText).isEmpty, "\(result.stderrText)")
        let bytes = String(decoding: try fileBytes(copy), as: UTF8.self)
        #expect(Self.leaks(bytes).isEmpty && !bytes.contains("rtmp://"))
    }

    /// An HLS upload to a URL with credentials: the playlists and segments on the server carry
    /// none of them (they name their segments relatively), and nothing printed does.
    @Test(.needsNginx) func anUploadedPlaylistCarriesNoCredentials() throws {
        let server = try NginxServer.started()
        let folder = TemporaryDirectory()
        let movie = try DemuxMedia.movie(folder.file("m.mp4"), seconds: 2, size: "160x120", videoArguments: ["-g", "25"])
        let url = server.uploadURL("sec/index.m3u8").replacing("http://", with: "http://bob:\(Self.password)@")
        let result = try Subprocess.run(Locations.avpipe, ["hls", movie, "--segment", "1", "--out", url, "-v"], timeout: 40)
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(Self.leaks(result.stdoutText + result.stderrText).isEmpty, "\(result.stderrText)")
        let uploaded = try FileManager.default.contentsOfDirectory(atPath: server.uploads + "/sec")
        #expect(uploaded.contains("index.m3u8") && uploaded.count >= 3, "\(uploaded)")
        for name in uploaded {
            let text = String(decoding: try fileBytes(server.uploads + "/sec/" + name), as: UTF8.self)
            #expect(Self.leaks(text).isEmpty && !text.contains("bob:"), "\(name)")
        }
    }

    /// A probe that succeeds says nothing of the token it was given, in text or JSON, and a copy
    /// made from the URL holds none of it.
    @Test(.needsNginx) func aProbedURLsTokenIsNotPrinted() throws {
        let server = try NginxServer.started()
        let folder = TemporaryDirectory()
        try server.serveFile(try Self.movie(folder), at: "m.mp4")
        for json in [false, true] {
            let result = try Subprocess.run(Locations.avpipe, ["probe", server.httpURL("m.mp4") + "?token=\(Self.token)", "-v"] + (json ? ["--json"] : []),
                                            timeout: 30)
            #expect(result.status == 0, "\(result.stderrText)")
            #expect(result.stdoutText.contains("h264"))
            #expect(Self.leaks(result.stdoutText + result.stderrText).isEmpty, "\(result.stdoutText)\(result.stderrText)")
        }
        // What is made from it names nowhere where it came from.
        let url = server.httpURL("m.mp4").replacing("http://", with: "http://bob:\(Self.password)@") + "?token=\(Self.token)"
        for output in ["o.mkv", "o.mp4", "o.ts"] {
            let result = try Subprocess.run(Locations.avpipe, ["remux", url, folder.file(output), "-v"], timeout: 30)
            #expect(result.status == 0, "\(result.stderrText)")
            #expect(Self.leaks(result.stderrText).isEmpty, "\(result.stderrText)")
            let bytes = String(decoding: try fileBytes(folder.file(output)), as: UTF8.self)
            #expect(Self.leaks(bytes).isEmpty && !bytes.contains("127.0.0.1"), "\(output)")
        }
    }
}
