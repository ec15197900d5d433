import Testing
@testable import AVPipeline

/// The one reading of output names: a file, an HLS folder, or an address by its scheme.
@Suite struct OutputLocationTests {
    @Test func aNameIsAFileAFolderOrAnAddress() {
        #expect(OutputLocation("a.mp4") == .file("a.mp4"))
        #expect(OutputLocation("-") == .file("-"))
        #expect(OutputLocation("site/index.m3u8") == .hlsFolder(playlist: "site/index.m3u8"))
        #expect(OutputLocation("stream", container: .hls) == .hlsFolder(playlist: "stream"))
        #expect(OutputLocation("rtmp://host/app/key") == .url("rtmp://host/app/key", scheme: .rtmp))
        #expect(OutputLocation("SRT://host:9000") == .url("SRT://host:9000", scheme: .srt))
        #expect(OutputLocation("https://host/a/b.m3u8").scheme == .https)
        // An address avpipe does not write to is still an address (refused by name when opened).
        #expect(OutputLocation("ftp://host/x.mp4") == .url("ftp://host/x.mp4", scheme: nil))
        // Not a scheme: a path that merely contains "://".
        #expect(OutputLocation("./http://x.mp4") == .file("./http://x.mp4"))
        #expect(OutputLocation("1a://x.mp4") == .file("1a://x.mp4"))
    }

    @Test func liveStreamsAreRTMPAndSRT() {
        let live = ["rtmp://h/a/k", "rtmps://h/a/k", "srt://h:1", "RTMP://h/a/k"]
        let notLive = ["http://h/a.m3u8", "https://h/a.m3u8", "a.flv", "a.m3u8", "ftp://h/a"]
        for name in live { #expect(OutputLocation(name).isLiveStream, "\(name)") }
        for name in notLive { #expect(!OutputLocation(name).isLiveStream, "\(name)") }
    }

    @Test func theSchemeTableServesInputsAndOutputs() throws {
        #expect(NetworkScheme.rtmps.whitelist == "rtmps,tls,tcp")
        #expect(NetworkScheme.http.whitelist == "http,tcp")
        #expect(NetworkScheme.allCases.filter(\.usesTLS) == [.rtmps, .https])
        #expect(OutputLocation("rtmp://u:secret@h/a/k").description.contains("secret") == false)
    }
}
