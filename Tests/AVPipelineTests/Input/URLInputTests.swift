import Foundation
import Testing
import TestSupport
@testable import AVPipeline

/// Network inputs in the library: how an argument is told from a path, what a remote playlist may
/// name, and `Demuxer(url:)` against a private nginx (same tracks as the file, timeouts).
@Suite struct URLInputTests {
    @Test func anArgumentIsAURLOnlyWithAScheme() {
        for url in ["http://h/m.mp4", "HTTPS://h/m.m3u8", "rtmp://h/live/x", "srt://h:9000", "ftp://h/x"] {
            #expect(InputLocation(argument: url) == .url(url))
        }
        for path in ["m.mp4", "a:b.mp4", "concat:a|b", "subfile:x", "C:\\m.mp4", "file:///etc/passwd", "./http://h/m.mp4",
                     "-", "pipe:0", "dir/http://x", "1http://x"] {
            #expect(InputLocation(argument: path) == .path(path))
        }
    }

    @Test func aSchemeIsReadThroughItsOwnProtocolsOnly() throws {
        #expect(try NetworkAddress("https://h/m.mp4").protocols == ["https", "tls", "tcp", "crypto"])
        #expect(try NetworkAddress("http://h/m.mp4").protocols == ["http", "tcp", "crypto"])
        #expect(try NetworkAddress("rtmp://h/live/x").protocols == ["rtmp", "tcp"])
        for refused in ["file:///etc/passwd", "data:,x", "gopher://h/x", "concat:http://h/a|b", "m.mp4"] {
            #expect { try NetworkAddress(refused) } throws: {
                guard case AVPipelineError.inputPolicy(let path, _) = $0 else { return false }
                return path == refused
            }
        }
        #expect(try NetworkAddress("https://h/m.m3u8").nestedProtocols == ["https", "crypto"])
        #expect(try NetworkAddress("rtmp://h/live/x").nestedProtocols == ["rtmp"])
        let options = try NetworkAddress("rtmp://h/live/x").openOptions(timeout: .milliseconds(2500), whitelist: "rtmp,tcp", certificates: .system)
        #expect(options["rw_timeout"] == "2500000" && options["timeout"] == nil, "RTMP's timeout means listen")
        let http = try NetworkAddress("http://h/m.mp4").openOptions(timeout: .seconds(10), whitelist: "http,tcp", certificates: .system)
        #expect(http["timeout"] == "10000000" && http["reconnect"] == "1" && http["protocol_whitelist"] == "http,tcp")
        #expect(http["tls_verify"] == nil && options["tls_verify"] == nil, "no TLS, nothing to check")
        let https = try NetworkAddress("https://h/m.mp4")
        #expect(https.openOptions(timeout: .seconds(1), whitelist: "", certificates: .system)["tls_verify"] == "1")
        let own = https.openOptions(timeout: .seconds(1), whitelist: "", certificates: .authorities(file: "/ca.pem"))
        #expect(own["tls_verify"] == "1" && own["ca_file"] == "/ca.pem")
        #expect(https.openOptions(timeout: .seconds(1), whitelist: "", certificates: .none)["tls_verify"] == "0")
    }

    @Test func aPlaylistsNamesAndTheirSchemes() {
        let playlist = """
            #EXTM3U
            #EXT-X-KEY:METHOD=AES-128,URI="https://keys/k1"
            #EXT-X-MAP:URI="init.mp4"
            #EXTINF:1,
              seg0.ts\r
            #EXTINF:1,
            file:///etc/passwd
            """
        #expect(RemotePlaylistCheck.names(in: playlist) == ["https://keys/k1", "init.mp4", "seg0.ts", "file:///etc/passwd"])
        #expect(RemotePlaylistCheck.scheme(of: "file:///etc/passwd") == "file")
        #expect(RemotePlaylistCheck.scheme(of: "crypto+http://h/a.ts") == "crypto")
        #expect(RemotePlaylistCheck.scheme(of: "Data:,x") == "data")
        #expect(RemotePlaylistCheck.scheme(of: "/live/seg0.ts") == nil)
        #expect(RemotePlaylistCheck.scheme(of: "seg:0.ts") == "seg")
    }

    @Test(.needsNginx) func aURLHasTheFilesTracks() async throws {
        let server = try NginxServer.started()
        let folder = TemporaryDirectory()
        let movie = try DemuxMedia.movie(folder.file("m.mp4"), seconds: 1, size: "160x120")
        try server.serveFile(movie, at: "m.mp4")
        let local = try Demuxer(path: movie)
        let remote = try Demuxer(url: server.httpURL("m.mp4"))
        #expect(remote.info.path == server.httpURL("m.mp4"))
        #expect(remote.info.tracks.map(\.codec) == local.info.tracks.map(\.codec))
        #expect(remote.info.videoTracks.first?.codedWidth == 160)
        #expect(!remote.isLive)
        var packets = 0
        for try await _ in try remote.audioTrack() { packets += 1 }
        var expected = 0
        for try await _ in try local.audioTrack() { expected += 1 }
        #expect(packets == expected && packets > 40)
    }

    @Test func aSilentServerTimesOut() throws {
        let listener = try LoopbackListener()
        var options = Demuxer.Options()
        options.inputPolicy.networkTimeout = .seconds(1)
        let started = ContinuousClock.now
        #expect { try Demuxer(url: listener.url("m.mp4"), options: options) } throws: {
            guard case AVPipelineError.notReadable(let path, let reason) = $0 else { return false }
            return path == listener.url("m.mp4") && reason.hasPrefix("timed out")
        }
        // 1 s asked for, against the 10 s default: load only adds, so the bound is wide.
        #expect(ContinuousClock.now - started < .seconds(8))
    }
}
