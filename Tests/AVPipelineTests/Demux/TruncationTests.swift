import Foundation
import Testing
import TestSupport
import AVPipeline

/// A file that really ends early (a partial download) is read up to its last intact packet and the
/// cut reported; a complete file whose edit list hides packets is not truncated at all.
@Suite struct TruncationTests {
    /// Every packet of one track, as (pts, size).
    static func read(_ track: DemuxedAudioTrack) async throws -> [PartialDownload.Packet] {
        var packets: [PartialDownload.Packet] = []
        while let packet = try await track.next() { packets.append(.init(pts: packet.presentationTime?.value, size: packet.byteCount)) }
        return packets
    }

    static func read(_ track: DemuxedVideoTrack) async throws -> [PartialDownload.Packet] {
        var packets: [PartialDownload.Packet] = []
        while let packet = try await track.next() { packets.append(.init(pts: packet.presentationTime?.value, size: packet.byteCount)) }
        return packets
    }

    /// 146,433 samples encode to 145 AAC packets (1024 of priming first); the edit list ffmpeg's
    /// command writes (in milliseconds) ends before the last one, so the index presents 144; ours,
    /// counted in samples, ends inside it and presents all 145. Both were called "truncated" before.
    @Test(arguments: ["avpipe", "ffmpeg"])
    func anEditListThatHidesPacketsIsNotATruncation(_ encoder: String) async throws {
        let folder = TemporaryDirectory()
        let wav = try MediaFactory.tone(folder.file("in.wav"), seconds: 4, channels: 1,
                                        extraArguments: ["-af", "atrim=end_sample=146433"])
        let m4a = folder.file("out.m4a")
        if encoder == "avpipe" {
            try await FileCapture(path: wav).encodeAAC().writeMP4(to: m4a, brand: .m4a)
        } else {
            try MediaFactory.ffmpeg(["-v", "error", "-i", wav, "-c:a", "aac", m4a])
        }
        let expected = try PartialDownload.packets(m4a, stream: "a:0")
        let presented = encoder == "avpipe" ? 145 : 144
        #expect(expected.count == presented, "the edit list presents \(presented) of 145 packets")
        for strict in [false, true] {
            let demuxer = try Demuxer(path: m4a, options: .init(strict: strict))
            let packets = try await Self.read(try demuxer.audioTrack())
            #expect(packets == expected)
            #expect(demuxer.truncations.isEmpty)
            #expect(demuxer.status == .completed)
        }
    }

    enum Cut: String, CaseIterable {
        case mp4Half, mp4NinetyPercent, movHalf, m4aNinetyPercent
        var ext: String { switch self { case .movHalf: "mov"; case .m4aNinetyPercent: "m4a"; default: "mp4" } }
        var fraction: Double { self == .mp4Half || self == .movHalf ? 0.5 : 0.9 }
    }

    @Test(arguments: Cut.allCases)
    func aPartialDownloadEndsAtItsLastIntactPacket(_ cut: Cut) async throws {
        let folder = TemporaryDirectory()
        let intact = try DemuxMedia.movie(folder.file("in.\(cut.ext)"), seconds: 6, video: cut != .m4aNinetyPercent,
                                          extraArguments: ["-movflags", "+faststart"])
        let download = try PartialDownload(intact, fraction: cut.fraction, as: folder.file("cut.\(cut.ext)"))
        let demuxer = try Demuxer(path: download.cutFile)
        var streams = [("a:0", try await Self.read(try demuxer.audioTrack()), 0)]
        if cut != .m4aNinetyPercent { streams.append(("v:0", try await Self.read(try demuxer.videoTrack()), 1)) }

        #expect(demuxer.status == .completed)
        for (stream, packets, _) in streams {
            let whole = try download.allPackets(stream), intactPart = try download.intactPackets(stream)
            #expect(intactPart.count < whole.count, "the cut must fall inside \(stream)'s data")
            #expect(packets == intactPart, "\(stream): \(packets.count) packets vs \(intactPart.count) intact")
            let truncation = try #require(demuxer.truncations.first { (demuxer.info.tracks[$0.track].kind == .audio) == (stream == "a:0") })
            #expect(truncation.packetsRead == intactPart.count)
            #expect(truncation.packetsExpected == whole.count)
            #expect((truncation.missing?.seconds ?? 0) > 0)
        }

        let strict = try Demuxer(path: download.cutFile, options: .init(strict: true))
        await #expect(throws: AVPipelineError.self) { _ = try await Self.read(try strict.audioTrack()) }
        guard case .failed(.invalidData) = strict.status else { Issue.record("strict status \(strict.status)"); return }
    }

    /// A raw ADTS stream has no index, but each frame header gives its length: a last frame cut
    /// short is left out (as Media3 does; ffmpeg passes the broken frame on).
    @Test func aCutLastADTSFrameIsLeftOut() async throws {
        let folder = TemporaryDirectory()
        let intact = try DemuxMedia.movie(folder.file("in.aac"), seconds: 2, video: false)
        let frames = try ADTSParser.headers(try fileBytes(intact))
        let lastFrame = try #require(frames.last?.frameLength)
        // Cut inside the last frame, leaving its header.
        let download = try PartialDownload(intact, fraction: 1 - Double(lastFrame / 2) / Double(fileSize(intact)),
                                           as: folder.file("cut.aac"))
        let demuxer = try Demuxer(path: download.cutFile)
        let packets = try await Self.read(try demuxer.audioTrack())
        #expect(packets.count == frames.count - 1)
        #expect(packets.map(\.size) == frames.dropLast().map(\.frameLength))
        #expect(demuxer.truncations.count == 1)
        #expect(demuxer.truncations.first?.packetsExpected == nil)

        let strict = try Demuxer(path: download.cutFile, options: .init(strict: true))
        await #expect(throws: AVPipelineError.self) { _ = try await Self.read(try strict.audioTrack()) }
    }

    /// Containers without an index: a Matroska and an MP3 cut short deliver the packets ffprobe
    /// finds wholly before the cut (those of the intact file) and say how many seconds their
    /// header promised beyond the last one; the Segment's and the Xing header's byte counts are the
    /// intact file's size.
    @Test(arguments: ["mkv", "mp3"])
    func aCutFileWithoutAnIndexIsReportedFromItsHeader(_ ext: String) async throws {
        let folder = TemporaryDirectory()
        let intact = folder.file("in.\(ext)")
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=3"]
                                + (ext == "mp3" ? ["-c:a", "libmp3lame"] : ["-c:a", "aac"]) + [intact])
        let download = try PartialDownload(intact, fraction: 0.6, as: folder.file("cut.\(ext)"))
        let demuxer = try Demuxer(path: download.cutFile)
        #expect(demuxer.shortfall?.contains("declares \(fileSize(intact)) bytes") == true, "\(demuxer.shortfall ?? "nil")")
        let packets = try await Self.read(try demuxer.audioTrack())
        let intactPart = try download.intactPackets("a:0")
        #expect(packets.map(\.size) == intactPart.map(\.size))
        let truncation = try #require(demuxer.truncations.first)
        #expect(truncation.reason != nil && truncation.packetsExpected == nil)
        let declared = try #require(try Probe.run(intact).duration)
        let end = try #require(truncation.end), missing = try #require(truncation.missing)
        #expect(abs((end + missing).seconds - declared) < 0.03, "\(end) + \(missing) vs \(declared) s")

        let whole = try Demuxer(path: intact, options: .init(strict: true))
        #expect(whole.shortfall == nil)
        _ = try await Self.read(try whole.audioTrack())
        #expect(whole.truncations.isEmpty)
    }
}
