import Testing
import TestSupport
@testable import AVPipeline

/// One container type for every output: the one parser of output names, and the writers that
/// take a `Container` refusing one they cannot write.
@Suite struct ContainerTests {
    @Test func anOutputNameSaysItsContainer() {
        let names: [(String, Container?)] = [
            ("a.mp4", .mp4), ("a.M4V", .mp4), ("dir.x/a.m4a", .m4a), ("a.m4b", .m4a), ("a.mov", .mov), ("a.mka", .mkv),
            ("a.webm", .webm), ("a.mts", .ts), ("site/index.m3u8", .hls), ("a.aac", .adts), ("a.264", .h264),
            ("a.hevc", .hevc), ("a.wave", .wav), ("a.raw", .pcm), ("a.aif", .aiff), ("a.opus", .opus), ("a.y4m", .y4m),
            ("a.yuv", .rawYUV), ("a.png", .png), ("a", nil), (".mp4", nil), ("a.xyz", nil), ("-", nil),
            // A stream's address says its container; an upload's name does.
            ("a.flv", .flv), ("rtmp://host/live/key", .flv), ("RTMPS://host/app/key.mp4", .flv), ("srt://host:9000", .ts),
            ("http://host/site/index.m3u8", .hls), ("https://host/a.ts", .ts), ("ftp://host/live/key", nil),
        ]
        for (name, container) in names { #expect(Container(path: name) == container, "\(name)") }
    }

    @Test func capabilitiesSayWhatEachHolds() {
        #expect(Container.allCases.filter(\.isMultiTrack) == [.mp4, .m4a, .mov, .mkv, .webm, .ts, .hls, .flv])
        #expect(Container.allCases.filter(\.isAudioFile) == [.wav, .pcm, .flac, .aiff, .mp3, .opus])
        #expect(Container.m4a.holdsAudio && !Container.m4a.holdsVideo)
        #expect(Container.h264.holdsVideo && !Container.h264.holdsAudio)
        #expect(Container.mkv.holdsSubtitles && !Container.hls.holdsSubtitles)
        #expect(Container.mp4.isGapless && !Container.mkv.isGapless)
        #expect(Container.mov.canFragment && Container.ts.streams && !Container.wav.canFragment)
    }

    @Test func writersRefuseAContainerTheyCannotWrite() async throws {
        let folder = TemporaryDirectory()
        let wav = try MediaFactory.tone(folder.file("in.wav"), seconds: 0.1, sampleRate: 48_000, channels: 1)
        #expect(throws: AVPipelineError.unsupportedFormat("an MP4Writer writes .mp4 or .m4a, not mkv")) {
            try MP4Writer(upstream: try FileCapture(path: wav).encodeAAC(), path: folder.file("o.mkv"), brand: .mkv)
        }
        #expect(throws: AVPipelineError.unsupportedFormat("mp4 is not an audio file format: use wav, flac, aiff, pcm, mp3 or opus")) {
            try AudioFileWriter(upstream: try FileCapture(path: wav), path: folder.file("o.x"), format: .mp4)
        }
        #expect(throws: AVPipelineError.unsupportedFormat("cannot tell the container from '\(folder.file("o.wav"))': use \(Container.extensionsText)")) {
            try Muxer(path: folder.file("o.wav"))
        }
    }
}
