import Foundation
import Testing
import TestSupport
import AVPipeline

/// A Demuxer on a named pipe: its tracks share the one context a pipe allows.
@Suite struct PipeDemuxTests {
    /// Starts `cat source > fifo` and returns the writer (wait for it when done).
    static func feed(_ source: String, into fifo: String) throws -> Process {
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/bin/sh")
        writer.arguments = ["-c", "cat '\(source)' > '\(fifo)'"]
        try writer.run()
        return writer
    }

    @Test func tracksPulledInAnyOrderGetAllTheirPackets() async throws {
        let folder = TemporaryDirectory()
        let movie = try DemuxMedia.movie(folder.file("in.ts"), seconds: 4)
        let fifo = folder.file("fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let writer = try Self.feed(movie, into: fifo)
        defer { writer.waitUntilExit() }

        let demuxer = try Demuxer(path: fifo)
        let audio = try demuxer.audioTrack(), video = try demuxer.videoTrack()
        // All the video first, then the audio: the audio waits, parked, while video is read.
        var videoSizes: [Int] = [], audioSizes: [Int] = []
        while let packet = try await video.next() { videoSizes.append(packet.byteCount) }
        while let packet = try await audio.next() { audioSizes.append(packet.byteCount) }
        #expect(videoSizes == (try PartialDownload.packets(movie, stream: "v:0").map(\.size)))
        #expect(audioSizes == (try PartialDownload.packets(movie, stream: "a:0").map(\.size)))
        #expect(demuxer.status == .completed)
        #expect(demuxer.truncations.isEmpty)
        // Once reading has begun, a pipe cannot go back for a track nobody asked for.
        #expect { try demuxer.audioTrack() } throws: { ($0 as? AVPipelineError)?.category == .usage }
    }
}
