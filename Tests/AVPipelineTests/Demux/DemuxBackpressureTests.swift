import Foundation
import Testing
import TestSupport
@testable import AVPipeline

/// The read-ahead bound and the discarding of unread tracks, proven with the tracks' counters.
@Suite struct DemuxBackpressureTests {
    /// Waits (without a timing assertion) until the reader has stopped moving: it is then either
    /// parked on a full buffer or at the end.
    static func settle(_ statistics: () -> DemuxStatistics) async {
        var last = -1, stableRounds = 0
        for _ in 0..<2_000 where stableRounds < 20 {
            let now = statistics().packetsRead
            stableRounds = now == last ? stableRounds + 1 : 0
            last = now
            try? await Task.sleep(for: .milliseconds(1))
        }
    }

    @Test(arguments: [1, 3, 5])
    func backgroundReadAheadNeverExceedsTheBound(bound: Int) async throws {
        let folder = TemporaryDirectory()
        let input = try DemuxMedia.movie(folder.file("in.mp4"), seconds: 3)
        let demuxer = try Demuxer(path: input, options: .init(maxBufferedPacketsPerTrack: bound, readsInBackground: true))
        let video = try demuxer.videoTrack()
        var delivered = 0
        // A slow consumer: after every pull the reader gets all the time it wants to run ahead.
        while let _ = try await video.next() {
            delivered += 1
            await Self.settle { video.statistics }
            let statistics = video.statistics
            #expect(statistics.packetsRead - delivered <= bound, "read \(statistics.packetsRead), delivered \(delivered)")
            if !statistics.reachedEnd {
                #expect(statistics.packetsRead - delivered == bound, "the reader should fill its buffer, not more")
            }
            if delivered == 20 { break }
        }
        #expect(video.statistics.highWaterMark == bound)
        #expect(video.statistics.bufferBound == bound)
    }

    /// The default: a track reads exactly when pulled, so nothing is ever read ahead.
    @Test func onDemandReadingNeverReadsAhead() async throws {
        let folder = TemporaryDirectory()
        let input = try DemuxMedia.movie(folder.file("in.mp4"), seconds: 3)
        let video = try Demuxer(path: input).videoTrack()
        var delivered = 0
        while let _ = try await video.next() {
            delivered += 1
            await Self.settle { video.statistics }
            #expect(video.statistics.packetsRead == delivered)
        }
        #expect(delivered == (try Probe.packets(input, stream: "v:0").count))
        #expect(video.statistics.highWaterMark == 0)
    }

    @Test(arguments: [false, true])
    func unreadVideoIsNeverRead(inBackground: Bool) async throws {
        let folder = TemporaryDirectory()
        // Lossless noise makes each video frame far larger than a read buffer, so skipping video
        // shows in the bytes read.
        let input = try DemuxMedia.movie(folder.file("big.mp4"), seconds: 1, size: "640x480",
                                         videoArguments: ["-vf", "noise=alls=100:allf=t", "-preset", "ultrafast", "-qp", "0"])
        let size = Int64(fileSize(input))
        let videoBytes = try Probe.packets(input, stream: "v:0").reduce(0) { $0 + Int(($1["size"] as? String) ?? "0")! }
        #expect(Double(videoBytes) > Double(size) * 0.9, "test media should be mostly video")

        let demuxer = try Demuxer(path: input, options: .init(readsInBackground: inBackground))
        let audio = try demuxer.audioTrack()
        var packets = 0
        while try await audio.next() != nil { packets += 1 }
        let statistics = audio.statistics
        #expect(packets == (try Probe.packets(input).count))
        // The first track read takes over the demuxer's probing context, whose probe read the
        // first packet or two of each stream at open: those are passed over, nothing more.
        #expect(statistics.otherTrackPackets <= 2)
        #expect(statistics.bytesRead < size / 4, "audio extraction read \(statistics.bytesRead) of \(size) bytes")

        let video = try demuxer.videoTrack()
        while try await video.next() != nil {}
        #expect(video.statistics.bytesRead >= Int64(videoBytes), "reading the video reads its bytes")
        #expect(video.statistics.otherTrackPackets == 0)
    }
}

@Suite struct DemuxCancellationTests {
    @Test func cancelFromAnotherTaskStopsTheTracks() async throws {
        let folder = TemporaryDirectory()
        let input = try DemuxMedia.movie(folder.file("in.mp4"), seconds: 3)
        let demuxer = try Demuxer(path: input)
        let audio = try demuxer.audioTrack()
        for _ in 0..<5 { _ = try await audio.next() }
        #expect(demuxer.status == .running)
        await Task.detached { demuxer.cancel() }.value
        await #expect(throws: AVPipelineError.cancelled) { _ = try await audio.next() }
        #expect(demuxer.status == .cancelled)
        let after = try await audio.next()
        #expect(after == nil, "a finished track stays finished")
    }

    @Test func cancellingThePullingTaskLeavesNoOutput() async throws {
        let folder = TemporaryDirectory()
        let input = try DemuxMedia.movie(folder.file("in.mp4"), seconds: 3)
        let demuxer = try Demuxer(path: input)
        let output = folder.file("out.aac")
        let started = LockedBox(false)
        let task = Task {
            let source = try demuxer.audioTrack().requiring(AAC.self)
            try await ADTSWriter(upstream: SlowSource(source, started: started), path: output).run()
        }
        while !started.get() { await Task.yield() }
        task.cancel()
        await #expect(throws: AVPipelineError.cancelled) { try await task.value }
        #expect(demuxer.status == .cancelled)
        #expect(folder.contents() == ["in.mp4"], "no output or temporary file may remain")
    }

    @Test func droppingATrackMidFileReleasesItsReader() async throws {
        let folder = TemporaryDirectory()
        let input = try DemuxMedia.movie(folder.file("in.mp4"), seconds: 2)
        let demuxer = try Demuxer(path: input)
        weak var weakTrack: DemuxedVideoTrack?
        do {
            let video = try demuxer.videoTrack()
            weakTrack = video
            _ = try await video.next()
        }
        #expect(weakTrack == nil)
        #expect(demuxer.status == .running, "an abandoned track is not a completion")
    }
}

/// Passes packets through, one per 10 ms, and says when the first one went by.
final class SlowSource<Upstream: SampleSource>: SampleSource where Upstream.Buffer == EncodedAudioPacket<AAC> {
    typealias Buffer = EncodedAudioPacket<AAC>
    let upstream: Upstream
    let started: LockedBox<Bool>
    var outputFormat: EncodedAudioFormat { upstream.outputFormat }
    init(_ upstream: Upstream, started: LockedBox<Bool>) { self.upstream = upstream; self.started = started }
    func next() async throws -> EncodedAudioPacket<AAC>? {
        let buffer = try await upstream.next()
        started.set(true)
        // Not a cancellation point itself: the demuxed track must be the one that notices.
        try? await Task.sleep(for: .milliseconds(10))
        return buffer
    }
}
