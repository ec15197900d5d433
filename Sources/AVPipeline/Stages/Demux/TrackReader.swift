internal import CFFmpeg
import Synchronization

/// Live counters of one track's reading context, written by its reading task and read by anyone
/// (tests, progress): they prove the read-ahead bound and that other tracks are never read.
final class TrackCounters: Sendable {
    let packetsRead = Atomic<Int>(0)
    let otherTrackPackets = Atomic<Int>(0)
    let bytesRead = Atomic<Int64>(0)
    let reachedEnd = Atomic<Bool>(false)
}

/// Reads one track through its own libavformat context.
///
/// Why a context per track instead of one shared `av_read_frame` loop: containers interleave in
/// long runs (an MP4 may hold a second of audio packets in a row), so a shared loop that must
/// reach the next video packet has to park every audio packet it passes — a per-track bound of 3
/// could not hold. With its own context, a track reads only when its consumer has room, and every
/// other stream is set to `AVDISCARD_ALL`, so the demuxer skips their bytes (MP4/MOV/MKV seek past
/// them): extracting the audio of a large movie does not read the video. The cost is one more open
/// (header parse) per consumed track; inputs are local files, so independent positions are cheap.
final class TrackReader {
    private let context: InputContext
    let streamIndex: Int
    private let timeBase: Rational
    private let counters: TrackCounters
    private let interrupt: InterruptFlag
    /// The container's packet count for the track, when it declares one (MP4 sample tables do):
    /// reaching end of file short of it means the file was cut.
    private let declaredPackets: Int?
    private var lastTime: MediaTime?
    private var packets = 0
    /// Set for raw elementary streams, whose silently skipped bytes only show in the byte count.
    private var coverage: ElementaryStreamCoverage?

    init(source: InputSource, policy: InputPolicy, track: TrackInfo, streamCount: Int, interrupt: InterruptFlag,
         counters: TrackCounters) throws(AVPipelineError) {
        self.interrupt = interrupt
        self.counters = counters
        streamIndex = track.index
        context = try InputContext(source: source, policy: policy, interrupt: interrupt, findStreamInfo: false,
                                   seeksOverSkippedData: true)
        // Formats that discover streams while reading (MPEG-TS) and raw streams (whose timing comes
        // from probing) need the probe; a complete multi-stream header must not be probed, since
        // probing reads packets of every stream.
        if !context.headerListsAllStreams || context.streamCount == 1 { try context.findStreamInfo() }
        guard context.streamCount == streamCount, streamIndex < streamCount,
              Codec(context.stream(streamIndex).pointee.codecpar.pointee.codec_id) == track.codec else {
            throw .notAMediaFile(path: source.label, reason: "the file changed while it was open")
        }
        for other in 0..<context.streamCount where other != streamIndex {
            context.stream(other).pointee.discard = AVDISCARD_ALL
        }
        let stream = context.stream(streamIndex)
        timeBase = Rational(stream.pointee.time_base)
        declaredPackets = stream.pointee.nb_frames > 0 ? Int(stream.pointee.nb_frames) : nil
        if ElementaryStreamCoverage.tilingFormats.contains(context.formatName) { coverage = ElementaryStreamCoverage() }
    }

    /// Reads packets into `handoff` until the end, an error, or the consumer leaving (the
    /// background mode: `Demuxer.Options.readsInBackground`).
    func run(into handoff: BoundedHandoff) async {
        do {
            while true {
                guard await handoff.waitForRoom() else { return }
                guard let packet = try nextPacket() else {
                    handoff.finish(.end)
                    return
                }
                handoff.deliver(OwnershipTransfer(packet as AnyObject))
            }
        } catch {
            handoff.finish(.failure(error))
        }
    }

    /// The next packet of this track, read now on the calling task; nil at the end (after checking
    /// the track is complete).
    func nextPacket() throws(AVPipelineError) -> Packet? {
        if interrupt.isRaised { throw .cancelled }
        let packet = try Packet()
        guard try readPacket(into: packet) else {
            try verifyComplete()
            counters.reachedEnd.store(true, ordering: .relaxed)
            return nil
        }
        return packet
    }

    /// Reads the next packet of this track (skipping any other stream's, which discard should
    /// already prevent); false at end of file.
    private func readPacket(into packet: Packet) throws(AVPipelineError) -> Bool {
        while true {
            let more: Bool
            do {
                more = try context.read(into: packet)
            } catch .invalidData(let path, _, let reason) {
                throw .invalidData(path: path, position: lastTime, reason: "\(reason) (after packet \(packets))")
            }
            counters.bytesRead.store(context.bytesRead, ordering: .relaxed)
            guard more else { return false }
            guard packet.streamIndex == streamIndex else {
                counters.otherTrackPackets.add(1, ordering: .relaxed)
                packet.unref()
                continue
            }
            let time = MediaTime(ffmpeg: packet.pointer.pointee.dts, timeBase: timeBase) ?? lastTime
            if (packet.pointer.pointee.flags & avp_pkt_flag_corrupt()) != 0 {
                throw .invalidData(path: context.path, position: time,
                                   reason: "packet \(packets + 1) is cut short (the file is truncated or damaged)")
            }
            packets += 1
            coverage?.count(position: packet.pointer.pointee.pos, size: packet.size)
            lastTime = time
            counters.packetsRead.add(1, ordering: .relaxed)
            return true
        }
    }

    private func verifyComplete() throws(AVPipelineError) {
        if let skipped = coverage?.skippedBytes(in: context.path), skipped > 0 {
            throw .invalidData(path: context.path, position: nil,
                               reason: "\(skipped) bytes of damaged data were skipped (a frame header is broken); \(packets) packets were readable")
        }
        if let declaredPackets, packets < declaredPackets {
            throw .invalidData(path: context.path, position: lastTime,
                               reason: "the file ends after \(packets) of \(declaredPackets) packets of track \(streamIndex) (truncated)")
        }
    }
}
