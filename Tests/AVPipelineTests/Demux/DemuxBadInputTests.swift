import Foundation
import Testing
import TestSupport
@testable import AVPipeline

@Suite struct DemuxBadInputTests {
    /// Reads every packet of every track; returns the first error.
    static func readAll(_ path: String, options: Demuxer.Options = .init()) async throws {
        let demuxer = try Demuxer(path: path, options: options)
        for index in demuxer.info.audioTracks.indices {
            let track = try demuxer.audioTrack(index)
            while try await track.next() != nil {}
        }
        for index in demuxer.info.videoTracks.indices {
            let track = try demuxer.videoTrack(index)
            while try await track.next() != nil {}
        }
    }

    /// In strict mode; by default the intact part is read (`TruncationTests`).
    @Test func strictlyATruncatedFileIsInvalidDataWithAPosition() async throws {
        let folder = TemporaryDirectory()
        let input = try DemuxMedia.movie(folder.file("in.mp4"), seconds: 3, extraArguments: ["-movflags", "+faststart"])
        let bytes = try fileBytes(input)
        let mdat = bytes.indices.first { bytes[$0..<min($0 + 4, bytes.count)].elementsEqual("mdat".utf8) }!
        let cut = folder.file("cut.mp4")
        try Data(bytes[..<(mdat + (bytes.count - mdat) / 2)]).write(to: URL(fileURLWithPath: cut))
        do {
            try await Self.readAll(cut, options: .init(strict: true))
            Issue.record("a file cut in half was read without error")
        } catch let error as AVPipelineError {
            guard case .invalidData(let path, let position, _) = error else {
                Issue.record("expected invalidData, got \(error)"); return
            }
            #expect(path == cut)
            #expect(position != nil)
        }
    }

    /// Cut before a track's first usable packet, a file still opens (probing lists the track) but
    /// the track cannot be described: asking for it is the input's fault, not a writer's EINVAL.
    @Test func aTrackWithUnknownParametersIsInvalidData() throws {
        let folder = TemporaryDirectory()
        let adts = try DemuxMedia.movie(folder.file("in.aac"), seconds: 1, video: false)
        let stream = try DemuxMedia.movie(folder.file("in.ts"), seconds: 1)
        try Data(try fileBytes(adts).prefix(12)).write(to: URL(fileURLWithPath: folder.file("cut.aac")))
        try Data(try fileBytes(stream).prefix(fileSize(stream) / 4)).write(to: URL(fileURLWithPath: folder.file("cut.ts")))
        for cut in [folder.file("cut.aac"), folder.file("cut.ts")] {
            let demuxer = try Demuxer(path: cut)
            #expect(demuxer.info.hasAudio, "probing still lists the audio track of \(cut)")
            #expect(demuxer.info.audioTracks.first?.sampleRate == nil)
            #expect(throws: AVPipelineError.invalidData(path: cut, position: nil,
                                                        reason: "the audio track's sample rate or channel count is unknown (no usable packet or header: is the file cut short?)")) {
                try demuxer.audioTrack()
            }
        }
    }

    @Test func failureSetsTheStatus() async throws {
        let folder = TemporaryDirectory()
        let input = try DemuxMedia.movie(folder.file("in.mp4"), seconds: 2, extraArguments: ["-movflags", "+faststart"])
        let bytes = try fileBytes(input)
        let cut = folder.file("cut.mp4")
        try Data(bytes[..<(bytes.count - 2000)]).write(to: URL(fileURLWithPath: cut))
        let demuxer = try Demuxer(path: cut, options: .init(strict: true))
        let video = try demuxer.videoTrack()
        await #expect(throws: AVPipelineError.self) { while try await video.next() != nil {} }
        guard case .failed(.invalidData) = demuxer.status else {
            Issue.record("status \(demuxer.status)"); return
        }
    }

    @Test func unopenableInputsAreTyped() throws {
        let folder = TemporaryDirectory()
        let empty = folder.file("empty.mp4")
        _ = FileManager.default.createFile(atPath: empty, contents: Data())
        #expect(throws: AVPipelineError.notAMediaFile(path: empty, reason: "the file is empty")) { try Demuxer(path: empty) }
        let missing = folder.file("missing.mp4")
        #expect(throws: AVPipelineError.fileNotFound(path: missing)) { try Demuxer(path: missing) }
        let garbage = folder.file("garbage.mp4")
        _ = FileManager.default.createFile(atPath: garbage, contents: Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 7919 >> 3) }))
        #expect { try Demuxer(path: garbage) } throws: { ($0 as? AVPipelineError)?.category == .input }
        #expect(throws: AVPipelineError.self) { try Demuxer(path: missing, options: .init(maxBufferedPacketsPerTrack: 0)) }
    }

    @Test func wrongTrackIndexIsAUsageError() throws {
        let folder = TemporaryDirectory()
        let input = try DemuxMedia.movie(folder.file("in.mp4"), seconds: 1)
        let demuxer = try Demuxer(path: input)
        #expect { try demuxer.audioTrack(1) } throws: { ($0 as? AVPipelineError)?.category == .usage }
    }
}
