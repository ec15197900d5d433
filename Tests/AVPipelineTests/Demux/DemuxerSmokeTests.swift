import Foundation
import Testing
import TestSupport
@testable import AVPipeline

@Suite struct DemuxerSmokeTests {
    @Test func readsAudioAndVideoPacketsOfAnMP4() async throws {
        let folder = TemporaryDirectory()
        let input = try DemuxMedia.movie(folder.file("in.mp4"), seconds: 2)
        let demuxer = try Demuxer(path: input)
        #expect(demuxer.info.hasAudio && demuxer.info.hasVideo)
        #expect(demuxer.status == .unknown)
        let audio = try demuxer.audioTrack()
        let video = try demuxer.videoTrack()
        #expect(audio.outputFormat.codec == .aac)
        #expect(video.outputFormat.codec == .h264)
        #expect(video.outputFormat.framing == .lengthPrefixed)
        var audioCount = 0, videoCount = 0
        while try await audio.next() != nil { audioCount += 1 }
        #expect(demuxer.status == .running)
        while try await video.next() != nil { videoCount += 1 }
        #expect(demuxer.status == .completed)
        #expect(audioCount == (try Probe.packets(input, stream: "a:0").count))
        #expect(videoCount == (try Probe.packets(input, stream: "v:0").count))
    }
}

@Suite struct DemuxerRawStreamTests {
    @Test(arguments: [("h264", "libx264", "h264"), ("h265", "libx265", "hevc")])
    func opensAnnexBElementaryStreams(ext: String, encoder: String, codec: String) async throws {
        let folder = TemporaryDirectory()
        let input = try DemuxMedia.movie(folder.file("in.\(ext)"), seconds: 1, videoCodec: encoder,
                                         videoArguments: encoder == "libx265" ? ["-x265-params", "log-level=error"] : [],
                                         audio: false)
        let demuxer = try Demuxer(path: input)
        #expect(!demuxer.info.hasAudio)
        let video = try demuxer.videoTrack()
        #expect(video.outputFormat.codec.name == codec)
        #expect(video.outputFormat.framing == .annexB)
        var count = 0
        while let packet = try await video.next() {
            count += 1
            packet.withUnsafeBytes { bytes in
                #expect(Array(bytes.prefix(3)) == [0, 0, 1] || Array(bytes.prefix(4)) == [0, 0, 0, 1])
            }
        }
        #expect(count == 25)
        #expect(throws: AVPipelineError.noAudioStream(path: input)) { try demuxer.audioTrack() }
    }

    @Test func opensADTS() async throws {
        let folder = TemporaryDirectory()
        let input = folder.file("in.aac")
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "sine=duration=1", "-c:a", "aac", input])
        let demuxer = try Demuxer(path: input)
        let audio = try demuxer.audioTrack()
        #expect(audio.outputFormat.codec == .aac)
        #expect(audio.outputFormat.sampleRate == 44_100)
        var count = 0
        while try await audio.next() != nil { count += 1 }
        #expect(count == (try Probe.packets(input).count))
        #expect(throws: AVPipelineError.noVideoStream(path: input)) { try demuxer.videoTrack() }
    }
}
