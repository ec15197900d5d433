import Foundation
import Testing
import TestSupport
import AVPipeline

@Suite struct DecodeBadInputTests {
    /// Garbage over the payload of some ADTS frames in the middle (headers intact, so the demuxer
    /// still finds every frame): the decoder reports and skips them and decodes the rest.
    @Test func corruptPacketsMidFileAreSkippedAndReported() async throws {
        let folder = TemporaryDirectory()
        let path = folder.file("in.aac")
        try makeAAC(path, seconds: 2, sampleRate: 44_100, channels: 2, container: "adts")
        var bytes = try fileBytes(path)
        var offsets: [Int] = []
        var i = 0
        while i + 7 <= bytes.count, bytes[i] == 0xFF, bytes[i + 1] & 0xF0 == 0xF0 {
            offsets.append(i)
            i += (Int(bytes[i + 3] & 0x03) << 11) | (Int(bytes[i + 4]) << 3) | (Int(bytes[i + 5]) >> 5)
        }
        #expect(offsets.count > 60)
        var generator = SystemRandomNumberGenerator()
        for frame in 40..<45 {
            let start = offsets[frame] + 7, end = offsets[frame + 1]
            for j in start..<end { bytes[j] = UInt8.random(in: 0...255, using: &generator) }
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        let result = try await decodeToBytes(path)
        #expect(result.statistics.skippedPackets >= 1, "damaged packets must be reported")
        #expect(result.statistics.firstSkip != nil)
        let cleanFrames = 2 * 44_100
        #expect(result.bytes.count / 4 >= cleanFrames - 6 * 1024, "decoding must continue past the damage")
    }

    @Test func streamWithoutDecoderIsUnsupportedCodec() async throws {
        let folder = TemporaryDirectory()
        let path = folder.file("unknown.wav")
        try Data(Self.wavWithFormatTag(0x7A7A)).write(to: URL(fileURLWithPath: path))
        do {
            _ = try Demuxer(path: path).audioTrack().decodeAudio()
            Issue.record("expected unsupportedCodec")
        } catch let error as AVPipelineError {
            guard case .unsupportedCodec = error else { Issue.record("got \(error)"); return }
        }
    }

    @Test func fileWithoutAudioIsNoAudioStream() async throws {
        let folder = TemporaryDirectory()
        let path = folder.file("video.mp4")
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "testsrc=duration=0.5:size=64x64:rate=10",
                                 "-c:v", "mpeg4", path])
        #expect(throws: AVPipelineError.noAudioStream(path: path)) {
            _ = try Demuxer(path: path).audioTrack()
        }
    }

    /// A WAV whose fmt chunk names a codec FFmpeg does not know, with some data.
    static func wavWithFormatTag(_ tag: UInt16) -> [UInt8] {
        func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> ($0 * 8)) } }
        func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
        let data = [UInt8](repeating: 0x11, count: 4096)
        let fmt = le16(tag) + le16(1) + le32(8000) + le32(8000) + le16(1) + le16(8)
        let body = Array("WAVE".utf8) + Array("fmt ".utf8) + le32(UInt32(fmt.count)) + fmt + Array("data".utf8) + le32(UInt32(data.count)) + data
        return Array("RIFF".utf8) + le32(UInt32(body.count)) + body
    }
}
