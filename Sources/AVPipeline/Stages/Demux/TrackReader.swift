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

/// Reads one track through its own libavformat context (or, for an input that cannot seek, through
/// the one context it shares with the other tracks: `SharedInput`).
///
/// Why a context per track instead of one shared `av_read_frame` loop: containers interleave in
/// long runs (an MP4 may hold a second of audio packets in a row), so a shared loop that must
/// reach the next video packet has to park every audio packet it passes — a per-track bound of 3
/// could not hold. With its own context, a track reads only when its consumer has room, and every
/// other stream is set to `AVDISCARD_ALL`, so the demuxer skips their bytes (MP4/MOV/MKV seek past
/// them): extracting the audio of a large movie does not read the video. The cost is one more open
/// (header parse) per consumed track; inputs are local files, so independent positions are cheap.
final class TrackReader {
    /// Where the packets come from: a context of the track's own (seekable files), or the one
    /// context of an input that cannot seek, shared with the other tracks (`SharedInput`).
    private enum Input {
        case own(InputContext)
        case shared(SharedInput)

        var path: String {
            switch self { case .own(let c): c.path; case .shared(let s): s.path }
        }
        var formatName: String {
            switch self { case .own(let c): c.formatName; case .shared(let s): s.formatName }
        }
        var bytesRead: Int64 {
            switch self { case .own(let c): c.bytesRead; case .shared(let s): s.bytesRead }
        }
        var reachedEndOfFile: Bool {
            switch self { case .own(let c): c.reachedEndOfFile; case .shared(let s): s.reachedEndOfFile }
        }
        var canSeek: Bool {
            switch self { case .own: true; case .shared(let s): s.reopenable }
        }
        func read(into packet: Packet, for stream: Int) throws(AVPipelineError) -> Bool {
            switch self {
            case .own(let c): try c.read(into: packet)
            case .shared(let s): try s.read(into: packet, for: stream)
            }
        }
    }

    /// Set once, or switched to a context of its own when a reopenable shared input seeks.
    @exclusivity(unchecked) private var input: Input
    /// How to open the input again for this track alone.
    private let reopening: Reopening
    let streamIndex: Int
    private let timeBase: Rational
    private let counters: TrackCounters
    private let interrupt: InterruptFlag
    /// The packets the container promises for the track, when it says (MP4 sample tables do):
    /// reaching end of file short of it means the file was cut.
    private let expectedPackets: Int?
    /// Where the track's declared duration ends, when the container declares one.
    private let declaredEnd: MediaTime?
    /// Why the file is shorter than its container declares (`DeclaredLength`), found on opening.
    private let shortfall: String?
    /// Whether `declaredEnd` is the header's exact word (FLAC), so that ending before it is a cut.
    private let durationDeclared: Bool
    /// Whether a cut file is an error (`Demuxer.Options.strict`) or read up to its last intact packet.
    private let strict: Bool
    private let status: DemuxStatusCell
    // Per-packet state, unchecked: one driver (see `SampleSource`).
    /// Whether FFmpeg handed over a last packet that the end of the file cut short.
    @exclusivity(unchecked) private var lastPacketCut = false
    /// After a seek, the packet counts no longer describe the whole track.
    @exclusivity(unchecked) private var seeked = false
    /// … and whether it was cut inside its header, so no packet covers its bytes.
    @exclusivity(unchecked) private var headerCut = false
    @exclusivity(unchecked) private var lastTime: MediaTime?
    @exclusivity(unchecked) private var lastEnd: MediaTime?
    @exclusivity(unchecked) private var packets = 0
    /// The first packet after a seek, read to check where the seek landed (`stepBack`): handed out next.
    @exclusivity(unchecked) private var peeked: Packet?
    /// Set for raw elementary streams, whose silently skipped bytes only show in the byte count.
    @exclusivity(unchecked) private var coverage: ElementaryStreamCoverage?
    /// ADTS frames carry their own length: a last frame shorter than it says was cut.
    private let checksADTSLength: Bool
    /// So do MPEG audio frames (MP3): checked on the frames read at the end of the file only, where
    /// the parser hands over what is left.
    private let checksMPEGAudioLength: Bool
    /// An ADTS packet shorter than its header says with more packets after it, and the error it is
    /// unless it lies in damage after the last whole frame (`verifyComplete`).
    @exclusivity(unchecked) private var damagedPacket: (number: Int, error: AVPipelineError)?
    /// The last (up to 8) bytes of the last ADTS packet read, to tell junk after the stream from
    /// damage in it; kept in an integer so that no packet allocates.
    @exclusivity(unchecked) private var lastPacketTail: (bytes: UInt64, count: Int) = (0, 0)
    private let isAudio: Bool
    private let isVideo: Bool
    /// Whether a jump in the packets' times is damage (`gapCheck`): set for VOD HLS.
    private let checksGaps: Bool
    /// The previous packet's decoding time and the step to it, for `gapCheck`.
    @exclusivity(unchecked) private var previousDTS: (value: Int64, step: Int64)?
    /// The track's first timestamp, when the container says.
    private let streamStart: Int64?
    /// How far before a seek's target reading starts (in `timeBase`): decoders need the packets before
    /// the target to decode it as a full decode does (AAC's overlap-add, MP3's bit reservoir, Opus's
    /// converging state: the stream's declared seek pre-roll, 80 ms).
    private let seekPreroll: Int64

    init(source: InputSource, policy: InputPolicy, track: TrackInfo, streamCount: Int, interrupt: InterruptFlag,
         connectionLog: ConnectionLog, counters: TrackCounters, strict: Bool, status: DemuxStatusCell, shared: SharedInput?,
         probed: InputContext? = nil, shortfall: String? = nil, fileEnd: MediaTime? = nil,
         durationDeclared: Bool = false) throws(AVPipelineError) {
        self.interrupt = interrupt
        self.shortfall = shortfall
        self.durationDeclared = durationDeclared
        self.counters = counters
        self.strict = strict
        self.status = status
        streamIndex = track.index
        reopening = Reopening(source: source, policy: policy, track: track, streamCount: streamCount, interrupt: interrupt,
                              connectionLog: connectionLog)
        let stream: UnsafeMutablePointer<AVStream>
        if let shared, try shared.register(stream: streamIndex) {
            input = .shared(shared)
            stream = shared.stream(streamIndex)
        } else if let probed {
            // The demuxer's probing context (header parsed, streams probed): read from where it is.
            for other in 0..<probed.streamCount where other != streamIndex {
                probed.stream(other).pointee.discard = AVDISCARD_ALL
            }
            input = .own(probed)
            stream = probed.stream(streamIndex)
        } else {
            let context = try reopening.ownContext()
            input = .own(context)
            stream = context.stream(streamIndex)
        }
        let timeBase = Rational(stream.pointee.time_base)
        self.timeBase = timeBase
        expectedPackets = Self.expectedPackets(stream, format: input.formatName)
        let start = stream.pointee.start_time == avp_nopts_value() ? 0 : stream.pointee.start_time
        // Matroska declares the segment's duration only, not each track's; Ogg and MPEG-TS declare
        // none (FFmpeg measures theirs at the end of the file, which is the cut).
        let measured = ["ogg", "mpegts"].contains(input.formatName)
        declaredEnd = measured ? nil : MediaTime(ffmpeg: stream.pointee.duration, timeBase: timeBase)
            .map { MediaTime(value: start + $0.value, timeBase: timeBase) } ?? fileEnd
        if ElementaryStreamCoverage.tilingFormats.contains(input.formatName) { coverage = ElementaryStreamCoverage() }
        checksADTSLength = input.formatName == "aac"
        checksMPEGAudioLength = input.formatName == "mp3"
        // A VOD HLS playlist read track by track: a segment served cut short (or skipped after
        // failing to open) leaves a hole in the middle of the timeline, which no end check sees.
        checksGaps = input.formatName == "hls" && input.canSeek
        isAudio = track.kind == .audio
        isVideo = track.kind == .video
        streamStart = stream.pointee.start_time == avp_nopts_value() ? nil : stream.pointee.start_time
        let parameters = stream.pointee.codecpar.pointee
        let declared = parameters.seek_preroll > 0 && parameters.sample_rate > 0
            ? av_rescale_q_rnd(Int64(parameters.seek_preroll), AVRational(num: 1, den: parameters.sample_rate), timeBase.avValue, AV_ROUND_UP) : 0
        seekPreroll = track.kind == .audio ? max(av_rescale_q(1, AVRational(num: 1, den: 10), timeBase.avValue), declared) : 0
    }

    deinit {
        if case .shared(let shared) = input { shared.unregister(stream: streamIndex) }
    }

    /// How many packets reading the whole track must give, for containers whose index lists every
    /// packet: an MP4/MOV's sample table *after* the edit list (samples the edit list leaves out are
    /// not presented and not missing; the raw sample count, `nb_frames`, would call a complete file
    /// with an edit list truncated). Elsewhere `nb_frames` is no packet count (an AVI states its
    /// length in ticks of its rate, twice the frames with B-frames), so nothing is expected.
    private static func expectedPackets(_ stream: UnsafeMutablePointer<AVStream>, format: String) -> Int? {
        guard format.hasPrefix("mov,"), stream.pointee.nb_frames > 0 else { return nil }  // fragmented: not known
        return Int(avformat_index_get_entries_count(stream))
    }

    /// How many packets of the index come up to and including the one decoded at `dts`: where a
    /// track read after a seek stands in the whole (the index lists packets in decode order).
    private func indexPosition(dts: Int64) -> Int? {
        guard case .own(let context) = input else { return nil }
        let stream = context.stream(streamIndex)
        var low = 0, high = Int(avformat_index_get_entries_count(stream))
        while low < high {
            let middle = (low + high) / 2
            guard let entry = avformat_index_get_entry(stream, Int32(middle)) else { return nil }
            if entry.pointee.timestamp <= dts { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Moves the reading position to the keyframe at or before `target` (presentation time).
    func seek(to target: MediaTime) throws(AVPipelineError) {
        if case .shared(let shared) = input, shared.reopenable {
            // The shared reading serves the tracks from the start; a seeking track reads on its own
            // connection, as a track of a seekable file does (each seeks to its own keyframe).
            let context = try reopening.ownContext()
            shared.unregister(stream: streamIndex)
            input = .own(context)
            peeked = nil
        }
        guard case .own(let context) = input else {
            throw .unsupportedFormat("'\(input.path)' cannot seek: it is read once, from the start (a pipe)")
        }
        let fresh = packets == 0 && !seeked
        let start = streamStart ?? 0
        let wanted = av_rescale_q_rnd(target.value, target.timeBase.avValue, timeBase.avValue, AV_ROUND_DOWN)
        // A track not read yet is at its start already.
        if fresh && wanted <= start { return }
        // Raw video elementary streams carry no picture times (FFmpeg cannot seek them either).
        if (context.pointer.pointee.iformat.pointee.flags & avp_fmt_notimestamps()) != 0
            || ["h264", "hevc", "m4v", "mpegvideo"].contains(input.formatName) {
            throw .unsupportedFormat("'\(input.path)' (\(input.formatName)) has no timestamps to seek by; remux it into a container first")
        }
        peeked = nil
        // Audio starts at least 100 ms early; the decoder drops what comes before the target.
        let preroll = seekPreroll
        let position = context.readPosition
        let rc = avformat_seek_file(context.pointer, Int32(streamIndex), Int64.min, wanted - preroll, wanted - preroll, 0)
        if rc == avp_error_exit() { throw .cancelled }
        if rc < 0 {
            // Where a container cannot seek (a Matroska file cut before its cues), a track not read
            // yet still reaches the target by reading on: an exact seek drops what comes before
            // it (ffmpeg's fallback too). Read on from where it was, if the attempt moved it.
            let stayed = context.readPosition == position
                || avio_seek(context.pointer.pointee.pb, position, avp_seek_set()) == position
            guard fresh && stayed else {
                throw .unsupportedFormat("'\(input.path)' (\(input.formatName)) cannot seek to \(target): \(ffmpegErrorText(rc))")
            }
            return
        }
        seeked = true
        lastPacketCut = false
        headerCut = false
        lastTime = nil
        lastEnd = nil
        if isAudio || isVideo { try stepBack(context, until: wanted - preroll, from: start) }
    }

    /// Seeks earlier, twice as far back each time, while the track's first packet comes after `goal`
    /// (or, for video, is no keyframe): a Matroska file without cues (mkvmerge's audio-only ones, 8
    /// Opus packets laced in a block) is sought by its blocks, and FFmpeg lands on the block after the
    /// time asked (as `ffmpeg -ss` does), so the decoder would miss its pre-roll or the target itself;
    /// an MPEG-TS file, sought by a search over its bytes, can land after the keyframe, mid-GOP, and
    /// the pictures up to the next keyframe (all of them, in the last GOP) would not decode (`ffmpeg
    /// -ss` gives none there). The packet read to check is handed out next: where the seek landed
    /// right, this costs nothing but the one seek.
    private func stepBack(_ context: InputContext, until goal: Int64, from start: Int64) throws(AVPipelineError) {
        // Audio steps back by its pre-roll at first; video by a second, about a GOP (not a tick: each
        // step of a network input is a request).
        let second = av_rescale_q(1, AVRational(num: 1, den: 1), timeBase.avValue)
        var asked = goal, back = max(isVideo ? second : seekPreroll, 1)
        while true {
            let first = try Packet()
            do {
                guard try readOwnTrack(context, into: first) else { return }
            } catch .cancelled {
                throw .cancelled
            } catch {
                // Back to where the seek landed: the next read meets (and reports) it as it would have.
                _ = avformat_seek_file(context.pointer, Int32(streamIndex), Int64.min, asked, asked, 0)
                return
            }
            let time = first.decodeTime(in: timeBase) ?? first.presentationTime(in: timeBase)
            guard let time, time.value > goal || (isVideo && !first.isKeyframe), asked > start else {
                peeked = first
                return
            }
            let earlier = max(goal - back, start)
            back *= 2
            let rc = avformat_seek_file(context.pointer, Int32(streamIndex), Int64.min, earlier, earlier, 0)
            if rc == avp_error_exit() { throw .cancelled }
            if rc < 0 {
                // Where it landed before is the best this container gives.
                _ = avformat_seek_file(context.pointer, Int32(streamIndex), Int64.min, asked, asked, 0)
                return
            }
            asked = earlier
        }
    }

    /// The next packet of this track from its own context (the other streams are discarded already).
    private func readOwnTrack(_ context: InputContext, into packet: Packet) throws(AVPipelineError) -> Bool {
        while try context.read(into: packet) {
            if packet.streamIndex == streamIndex { return true }
            packet.unref()
        }
        return false
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
                handoff.deliver(HandedOver(packet as AnyObject))
            }
        } catch {
            handoff.finish(.failure(error))
        }
    }

    /// The next packet of this track, read now on the calling task (into `blank`, a blank owner
    /// nobody else holds, when given); nil at the end (after checking the track is complete).
    func nextPacket(reusing blank: Packet? = nil) throws(AVPipelineError) -> Packet? {
        if interrupt.isRaised { throw .cancelled }
        let packet: Packet
        if let blank { packet = blank } else { packet = try Packet() }
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
            if let first = peeked {
                peeked = nil
                av_packet_move_ref(packet.pointer, first.pointer)
                more = true
            } else {
                do {
                    more = try input.read(into: packet, for: streamIndex)
                } catch .invalidData(let path, _, let reason) {
                    // A frame header cut short by the end of the file (raw ADTS reports EIO for it).
                    if !strict && input.reachedEndOfFile {
                        lastPacketCut = true
                        headerCut = true
                        return false
                    }
                    // A frame header broken with nothing whole after it (a last frame cut inside its
                    // header and zero-filled): the stream's end, as for ffmpeg, judged by `verifyComplete`.
                    if checksADTSLength, input.canSeek, !seeked, let coverage, coverage.adtsTrailingDamage(in: input.path) != nil {
                        return false
                    }
                    throw .invalidData(path: path, position: lastTime, reason: "\(reason) (after packet \(packets))")
                }
            }
            counters.bytesRead.store(input.bytesRead, ordering: .relaxed)
            guard more else { return false }
            guard packet.streamIndex == streamIndex else {
                counters.otherTrackPackets.add(1, ordering: .relaxed)
                packet.unref()
                continue
            }
            let time = MediaTime(ffmpeg: packet.pointer.pointee.dts, timeBase: timeBase) ?? lastTime
            coverage?.count(position: packet.pointer.pointee.pos, size: packet.size)
            if isCutShort(packet) {
                // Cut short at the end of the file is a truncation; anywhere else it is damage.
                packet.unref()
                guard try !input.read(into: packet, for: streamIndex) else {
                    let error = AVPipelineError.invalidData(path: input.path, position: time,
                                                            reason: "packet \(packets + 1) is damaged (shorter than the container says)")
                    // In a whole ADTS file it may lie in junk after the stream, which only the end
                    // can tell (`verifyComplete`): the packet is left out, the next one read on.
                    guard coverage != nil, checksADTSLength, input.canSeek, !seeked, damagedPacket == nil else {
                        packet.unref()
                        throw error
                    }
                    damagedPacket = (packets + 1, error)
                    let next = try Packet()
                    av_packet_move_ref(next.pointer, packet.pointer)
                    peeked = next
                    continue
                }
                if strict {
                    throw .invalidData(path: input.path, position: time,
                                       reason: "packet \(packets + 1) is cut short (the file is truncated)")
                }
                lastPacketCut = true
                return false
            }
            if checksGaps { try gapCheck(packet) }
            packets += 1
            if checksADTSLength {
                lastPacketTail = packet.withUnsafeBytes { bytes in
                    (bytes.suffix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }, min(8, bytes.count))
                }
            }
            lastTime = time
            if let pts = MediaTime(ffmpeg: packet.pointer.pointee.pts, timeBase: timeBase) {
                let end = MediaTime(value: pts.value + max(0, packet.pointer.pointee.duration), timeBase: timeBase)
                if lastEnd.map({ end > $0 }) ?? true { lastEnd = end }
            }
            counters.packetsRead.add(1, ordering: .relaxed)
            return true
        }
    }

    /// Refuses a jump of more than half a second (and three times the usual step) between
    /// consecutive packets: media is missing there. HLS segments continue each other's times.
    private func gapCheck(_ packet: Packet) throws(AVPipelineError) {
        let dts = packet.pointer.pointee.dts
        guard dts != avp_nopts_value() else { return }
        defer { previousDTS = (dts, previousDTS.map { dts - $0.value } ?? 0) }
        guard let previous = previousDTS else { return }
        let jump = dts - previous.value
        let halfSecond = Int64(timeBase.denominator) / Int64(max(1, timeBase.numerator) * 2)
        guard jump > max(halfSecond, 3 * previous.step), previous.step > 0 else { return }
        let from = MediaTime(value: previous.value, timeBase: timeBase)
        let missing = MediaTime(value: jump, timeBase: timeBase)
        throw .invalidData(path: input.path, position: from,
                           reason: "\(Double((missing.seconds * 10).rounded()) / 10) s of track \(streamIndex) are missing (a segment is cut short or could not be read)")
    }

    /// FFmpeg flags a packet the file ends in the middle of (MP4/MOV, MPEG-TS…); the ADTS and MP3
    /// demuxers pass such a frame on unflagged, but its header still says how long it should be.
    private func isCutShort(_ packet: Packet) -> Bool {
        if (packet.pointer.pointee.flags & avp_pkt_flag_corrupt()) != 0 { return true }
        if checksMPEGAudioLength, input.reachedEndOfFile {
            return packet.withUnsafeBytes { bytes in MPEGAudioFrameLength.of(bytes).map { $0 > bytes.count } ?? false }
        }
        guard checksADTSLength, packet.size >= 7 else { return false }
        return packet.withUnsafeBytes { bytes in
            guard bytes[0] == 0xFF, bytes[1] & 0xF0 == 0xF0 else { return false }
            let frameLength = Int(bytes[3] & 0x03) << 11 | Int(bytes[4]) << 3 | Int(bytes[5]) >> 5
            return frameLength > bytes.count
        }
    }

    /// Whether the ADTS stream is whole up to bytes at the end that are no frames (junk appended, a
    /// last frame cut and filled with zeros): recorded as a truncation, as ffmpeg reads such a file
    /// (every frame decoded, a warning); `--strict` refuses it. Damage before the last whole frame
    /// stays an error.
    private func endsInTrailingJunk(_ coverage: ElementaryStreamCoverage, skipped: Int64) throws(AVPipelineError) -> Bool {
        guard checksADTSLength, input.canSeek, skipped > 0 || damagedPacket != nil else { return false }
        // Nothing read from the junk: the last packet ends where the uncovered bytes begin.
        let lastBytes = (0..<lastPacketTail.count).reversed().map { UInt8(truncatingIfNeeded: lastPacketTail.bytes >> (8 * $0)) }
        if damagedPacket == nil, skipped > 0,
           coverage.trailingJunkStart(in: input.path, lastBytes: lastBytes, isFrameStart: { $0[0] == 0xFF && $0[1] & 0xF6 == 0xF0 }) != nil {
            if strict {
                throw .invalidData(path: input.path, position: lastTime, reason: "\(skipped) bytes after packet \(packets) are no ADTS frames")
            }
            status.recordTruncation(Truncation(track: streamIndex, packetsRead: packets, packetsExpected: nil, end: lastEnd,
                                               missing: nil, reason: "no ADTS frames", trailingBytes: skipped))
            return true
        }
        // FFmpeg took packets from the junk (a frame header's pattern in it): every frame before
        // it was handed on as ffmpeg does, and those packets too (a decoder skips what it cannot
        // decode), unless one was cut short (left out).
        guard let damage = coverage.adtsTrailingDamage(in: input.path),
              damagedPacket.map({ $0.number > damage.frames }) ?? true else { return false }
        if strict {
            throw .invalidData(path: input.path, position: lastTime,
                               reason: "\(damage.bytes) bytes after ADTS frame \(damage.frames) are damaged (no whole frames)")
        }
        let passedOn = Swift.max(0, packets - damage.frames)
        status.recordTruncation(Truncation(track: streamIndex, packetsRead: damage.frames, packetsExpected: nil,
                                           end: passedOn == 0 ? lastEnd : nil, missing: nil, reason: "damaged, no whole ADTS frames",
                                           trailingBytes: damage.bytes, trailingPackets: passedOn))
        return true
    }

    private func verifyComplete() throws(AVPipelineError) {
        if !seeked, let coverage {
            let skipped = coverage.skippedBytes(in: input.path, tailCut: headerCut || !input.canSeek)
            if try endsInTrailingJunk(coverage, skipped: skipped) { return }
            if let damagedPacket { throw damagedPacket.error }
            if skipped > 0 {
                throw .invalidData(path: input.path, position: nil,
                                   reason: "\(skipped) bytes of damaged data were skipped (a frame header is broken); \(packets) packets were readable")
            }
        } else if let damagedPacket {
            throw damagedPacket.error  // met before a seek, which leaves the end check undone
        }
        // Where the packets read stand in the whole track: after a seek, the position of the last
        // one in the index (MP4), not the count read since.
        let present = !seeked ? packets : lastTime.flatMap { indexPosition(dts: $0.value) } ?? packets
        let short = expectedPackets.map { present < $0 } ?? false
        // A file shorter than its container declares ends every track it cuts; a track that
        // reached the declared end ended before the cut. Where the header declares each track's
        // length exactly, ending before it is the cut.
        let reachedEnd = declaredEnd.flatMap { end in lastEnd.map { $0 >= end } }
        let cutReason = shortfall.flatMap { reachedEnd == true ? nil : $0 }
            ?? (durationDeclared && reachedEnd == false ? declaredEnd.map { "its header declares \($0)" } : nil)
        guard short || lastPacketCut || cutReason != nil else { return }
        let expected = expectedPackets.map { max($0, present + (lastPacketCut ? 1 : 0)) }
        if strict {
            let counts = expected.map { "\(present) of \($0) packets" } ?? "\(present) packets"
            throw .invalidData(path: input.path, position: lastTime,
                               reason: "the file ends after \(counts) of track \(streamIndex) (truncated\(cutReason.map { ": \($0)" } ?? ""))")
        }
        let missing = declaredEnd.flatMap { declared in lastEnd.map { declared - $0 } }
        status.recordTruncation(Truncation(track: streamIndex, packetsRead: present, packetsExpected: expected,
                                           end: lastEnd, missing: missing, reason: expected == nil ? cutReason : nil))
    }
}

/// What a track needs to open its input again for itself: a context in which every other stream
/// is discarded, checked to be the same file.
private struct Reopening {
    let source: InputSource
    let policy: InputPolicy
    let track: TrackInfo
    let streamCount: Int
    let interrupt: InterruptFlag
    /// The demuxer's: a track's own connection counts as the input's.
    let connectionLog: ConnectionLog

    func ownContext() throws(AVPipelineError) -> InputContext {
        let context = try InputContext(source: source, policy: policy, interrupt: interrupt, findStreamInfo: false,
                                       seeksOverSkippedData: true, connectionLog: connectionLog)
        // Formats that discover streams while reading (MPEG-TS) and raw streams (whose timing comes
        // from probing) need the probe; a complete multi-stream header must not be probed, since
        // probing reads packets of every stream.
        if !context.headerListsAllStreams || context.streamCount == 1 { try context.findStreamInfo() }
        guard context.streamCount == streamCount, track.index < streamCount,
              Codec(context.stream(track.index).pointee.codecpar.pointee.codec_id) == track.codec else {
            throw .notAMediaFile(path: source.label, reason: "the file changed while it was open")
        }
        for other in 0..<context.streamCount where other != track.index {
            context.stream(other).pointee.discard = AVDISCARD_ALL
        }
        return context
    }
}
