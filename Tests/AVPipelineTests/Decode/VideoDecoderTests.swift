import Foundation
import Testing
import TestSupport
import AVPipeline

/// The VideoDecoder against ffprobe's view of the same stream: every frame, in presentation order,
/// with ffprobe's timestamps; format and orientation from the stream.
@Suite struct VideoDecoderTests {
    static func ffprobeFrames(_ path: String) throws -> [Int64] {
        let result = try Subprocess.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=best_effort_timestamp",
                                                    "-of", "csv=p=0", path])
        // One line per frame ("0," when side data follows; an empty line for the side data itself).
        return result.stdoutText.split(separator: "\n").compactMap { $0.split(separator: ",").first.flatMap { Int64($0) } }
    }

    @Test(arguments: [0, 1])
    func everyFrameWithFFprobesTimestamps(threads: Int) async throws {
        let folder = TemporaryDirectory()
        let input = try DemuxMedia.movie(folder.file("in.mp4"), seconds: 3, videoArguments: ["-bf", "3", "-g", "15"])
        let demuxer = try Demuxer(path: input)
        let decoder = try demuxer.videoTrack().decodeVideo(threads: threads)
        #expect(decoder.outputFormat.pixelFormat == .yuv420p)
        #expect(decoder.outputFormat.width == 320 && decoder.outputFormat.height == 240)
        var times: [Int64] = []
        var keyframes = 0
        while let frame = try await decoder.next() {
            #expect(frame.format.width == 320)
            #expect(frame.lineSize(0) >= 320 && frame.planeHeight(1) == 120)
            frame.withUnsafePlane(0) { #expect($0.count >= 320 * 240) }
            times.append(try #require(frame.presentationTime?.value))
            if frame.isKeyframe { keyframes += 1 }
        }
        #expect(times == (try Self.ffprobeFrames(input)))
        #expect(times.count == 75)
        #expect(keyframes >= 5)
        #expect(decoder.statistics.pictures == 75 && decoder.statistics.skippedPackets == 0)
    }

    @Test func orientationComesFromTheTrack() async throws {
        guard Locations.corpusAvailable else { print("notice: ../shared/corpus absent; orientation case skipped"); return }
        let demuxer = try Demuxer(path: Locations.corpusFile("androidx__sample_rotate_and_reflect.mp4"))
        let decoder = try demuxer.videoTrack().decodeVideo()
        #expect(decoder.outputFormat.rotation == demuxer.info.videoTracks[0].rotation)
        #expect(decoder.outputFormat.isMirrored)
        #expect(decoder.outputFormat.displayWidth == 720 && decoder.outputFormat.displayHeight == 1080)
    }

    @Test func anAbsurdThreadCountIsAUsageError() throws {
        let folder = TemporaryDirectory()
        let demuxer = try Demuxer(path: try DemuxMedia.movie(folder.file("in.mp4"), seconds: 1))
        #expect { try demuxer.videoTrack().decodeVideo(threads: -1) } throws: { ($0 as? AVPipelineError)?.category == .usage }
    }
}
