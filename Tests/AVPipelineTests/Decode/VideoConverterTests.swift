import Foundation
import Testing
import TestSupport
import AVPipeline

/// The converter's arithmetic and its pass-through: sizes as ffmpeg's `scale=W:-1` computes them,
/// upright formats, and pictures that already fit handed on as they are.
@Suite struct VideoConverterTests {
    static func decoder(_ folder: TemporaryDirectory, rotation: Int) throws -> (Demuxer, String) {
        let plain = try DemuxMedia.movie(folder.file("plain.mp4"), seconds: 1, size: "320x180", audio: false)
        let input = folder.file("in.mp4")
        try MediaFactory.rotated(plain, degrees: rotation, to: input)
        return (try Demuxer(path: input), input)
    }

    @Test func uprightSizesAndFormats() async throws {
        let folder = TemporaryDirectory()
        let (demuxer, _) = try Self.decoder(folder, rotation: 90)
        let converter = try demuxer.videoTrack().decodeVideo()
            .converted(VideoConversion(pixelFormat: .rgb24, width: 90, upright: true))
        #expect(converter.outputFormat.width == 90 && converter.outputFormat.height == 160)
        #expect(converter.outputFormat.rotation == 0 && !converter.outputFormat.isMirrored)
        let picture = try #require(try await converter.next())
        #expect(picture.format.pixelFormat == .rgb24)
        #expect(picture.format.width == 90 && picture.format.height == 160 && picture.lineSize(0) >= 270)
    }

    @Test func aPictureThatFitsIsHandedOnAsItIs() async throws {
        let folder = TemporaryDirectory()
        let (demuxer, _) = try Self.decoder(folder, rotation: 0)
        let converter = try demuxer.videoTrack().decodeVideo().converted(VideoConversion(pixelFormat: .yuv420p, upright: true))
        let picture = try #require(try await converter.next())
        #expect(picture.format.width == 320 && picture.format.height == 180 && picture.format.pixelFormat == .yuv420p)
    }

    @Test func absurdSizesAreUsageErrors() throws {
        let folder = TemporaryDirectory()
        let (demuxer, _) = try Self.decoder(folder, rotation: 0)
        for conversion in [VideoConversion(width: 0), VideoConversion(height: 100_000)] {
            #expect { try demuxer.videoTrack().decodeVideo().converted(conversion) } throws: {
                ($0 as? AVPipelineError)?.category == .usage
            }
        }
    }
}
