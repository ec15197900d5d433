import Foundation
import Testing
import TestSupport
@testable import AVPipeline

/// Copy chains whose tracks read on demand pass their packets as plain calls
/// (`ImmediatePacketSource`); tracks read in the background go through `async` pulls. Both paths
/// must give ffmpeg's bytes, and the typed pulls and seek marks must survive the fast one.
@Suite struct ImmediatePullTests {
    static func ffmpegAnnexB(_ input: String, _ output: String) throws {
        try MediaFactory.ffmpeg(["-v", "error", "-y", "-i", input, "-an", "-c:v", "copy",
                                 "-bsf:v", "h264_mp4toannexb", "-f", "h264", output])
    }

    static func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    @Test(arguments: [false, true])
    func annexBFileIsFFmpegsInEitherReadingMode(inBackground: Bool) async throws {
        let folder = TemporaryDirectory()
        let input = try DemuxMedia.movie(folder.file("in.mp4"), seconds: 3)
        let reference = folder.file("ffmpeg.h264")
        try Self.ffmpegAnnexB(input, reference)

        let demuxer = try Demuxer(path: input, options: .init(readsInBackground: inBackground))
        let converter = try demuxer.videoTrack().annexB()
        #expect(converter.isImmediate == !inBackground)
        let ours = folder.file("ours.h264")
        try await converter.writeRawVideo(to: ours)
        #expect(try Self.bytes(ours) == Self.bytes(reference))
    }

    /// Pulled one typed packet at a time, an immediate chain gives the same bytes, keyframes first.
    @Test func typedPullsOfAnImmediateChainAreFFmpegsPackets() async throws {
        let folder = TemporaryDirectory()
        let input = try DemuxMedia.movie(folder.file("in.mp4"), seconds: 2)
        let reference = folder.file("ffmpeg.h264")
        try Self.ffmpegAnnexB(input, reference)

        let converter = try Demuxer(path: input).videoTrack().requiring(H264.self).annexB()
        #expect(converter.isImmediate)
        var joined = Data(), packets = 0
        while let packet = try await converter.next() {
            if packets == 0 { #expect(packet.isKeyframe) }
            packet.withUnsafeBytes { joined.append(contentsOf: $0) }
            packets += 1
        }
        #expect(packets == (try Probe.packets(input, stream: "v:0").count))
        #expect(joined == (try Self.bytes(reference)))
    }

    /// Given the owner of the packet it pulled last, an immediate chain reads and converts the next
    /// packet into it: after the first pull, no owner is made. The bytes stay ffmpeg's, so nothing
    /// of a previous packet survives in a reused owner.
    @Test func immediatePullsFillTheOwnerTheyAreGiven() async throws {
        let folder = TemporaryDirectory()
        let input = try DemuxMedia.movie(folder.file("in.mp4"), seconds: 2)
        let reference = folder.file("ffmpeg.h264")
        try Self.ffmpegAnnexB(input, reference)

        let converter = try Demuxer(path: input).videoTrack().annexB()
        var blank: Packet?
        var joined = Data(), pulls = 0, reused = 0
        while true {
            let given = blank.take()
            guard let pulled = try converter.nextPacketImmediately(reusing: given) else { break }
            if let given, pulled.packet === given { reused += 1 }
            pulled.packet.withUnsafeBytes { joined.append(contentsOf: $0) }
            pulled.packet.unref()  // what a writer does once it has written it
            blank = pulled.packet
            pulls += 1
        }
        #expect(pulls == (try Probe.packets(input, stream: "v:0").count))
        #expect(reused == pulls - 1)
        #expect(joined == (try Self.bytes(reference)))
    }

    /// A seek asked mid-way reaches the converted stream: its next packet carries the mark and
    /// is a keyframe; the one after carries none.
    @Test func aSeekMarkPassesThroughAnImmediateConversion() async throws {
        let folder = TemporaryDirectory()
        let input = try DemuxMedia.movie(folder.file("in.mp4"), seconds: 4)
        let demuxer = try Demuxer(path: input)
        let converter = try demuxer.videoTrack().annexB()
        #expect(converter.isImmediate)
        for _ in 0..<5 { _ = try await converter.next() }
        try demuxer.seek(to: .seconds(2))
        let first = try #require(try await converter.next())
        #expect(first.seekMark?.target == .seconds(2))
        #expect(first.isKeyframe)
        let second = try #require(try await converter.next())
        #expect(second.seekMark == nil)
    }

    /// The Muxer pulls immediate inputs without suspending: the file must be the one it writes
    /// when the same tracks are read in the background, with every input packet in it.
    @Test func remuxIsTheSameFileInEitherReadingMode() async throws {
        let folder = TemporaryDirectory()
        let input = try DemuxMedia.movie(folder.file("in.mp4"), seconds: 3)
        var outputs: [String] = []
        for inBackground in [false, true] {
            let demuxer = try Demuxer(path: input, options: .init(readsInBackground: inBackground))
            let output = folder.file("out-\(inBackground).mp4")
            let muxer = try Muxer(path: output)
            try muxer.addVideo(try demuxer.videoTrack())
            try muxer.addAudio(try demuxer.audioTrack())
            try await muxer.run()
            outputs.append(output)
        }
        #expect(try Self.bytes(outputs[0]) == Self.bytes(outputs[1]))
        for stream in ["v:0", "a:0"] {
            #expect(try Probe.packets(outputs[0], stream: stream).count == Probe.packets(input, stream: stream).count)
        }
    }
}
