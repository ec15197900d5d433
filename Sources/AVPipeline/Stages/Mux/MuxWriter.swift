internal import CFFmpeg

/// Where the earliest track starts, before 0 (see `Muxer.startNonNegative`): every track is written
/// that much later.
struct StartShift {
    /// The track whose first packet is the earliest.
    let track: Int
    /// That packet's presentation time (negative).
    let start: MediaTime
}

/// The libavformat half of the Muxer: one output context with one stream per track. It writes
/// packets in the order it is given (the Muxer has already interleaved them), so it uses
/// `av_write_frame` — libavformat's own interleaving queue would hold packets back (up to
/// `max_interleave_delta`) when one track ends early.
final class MuxWriter {
    /// The open output; replaced when a network output reconnects (`reconnect()`).
    private var context: OutputContext
    private let finalPath: String
    private let tracks: [MuxTrack]
    /// Each track's stream in `context`.
    @exclusivity(unchecked) private var streams: [UnsafeMutablePointer<AVStream>]
    /// Each track's time base, as its packets arrive (read per packet, without touching the track).
    private let inputTimeBases: [AVRational]
    // Per-packet state, unchecked: one driver (see `SampleSource`).
    @exclusivity(unchecked) private var stats: [StreamTally]
    @exclusivity(unchecked) private(set) var position: MediaTime?
    /// Per audio track: its sample rate where its time base is coarser than one sample (Matroska's
    /// milliseconds), and the rounding state `av_rescale_delta` carries from packet to packet.
    @exclusivity(unchecked) private var sampleExact: [(rate: Int32, last: Int64)?]
    /// Per track: how much later than its packets say each is written, in its stream's time base
    /// (see `init`'s `startShift`); 0 for none.
    @exclusivity(unchecked) private var shiftTicks: [Int64]
    private let startShift: StartShift?
    /// Why the network output's connection broke, set by the write that found it broken.
    private(set) var lostConnection: String?
    /// How the output is opened again on `reconnect()`.
    private let opening: Opening

    /// What opening the output takes, kept for reconnecting.
    private struct Opening {
        let path: String, stream: Bool, container: Container
        let metadata: [String: String], muxerOptions: [String: String]
        let network: NetworkConnection?
    }

    init(path: String, finalPath: String, stream: Bool = false, container: Container, tracks: [MuxTrack],
         metadata: [String: String], chapters: [Chapter], coverArt: CoverArt?, attachments: [Attachment] = [],
         startShift: StartShift? = nil, muxerOptions: [String: String], network: NetworkConnection? = nil) throws(AVPipelineError) {
        self.finalPath = finalPath
        self.startShift = startShift
        self.tracks = tracks
        let opening = Opening(path: path, stream: stream, container: container, metadata: metadata, muxerOptions: muxerOptions, network: network)
        self.opening = opening
        (context, streams) = try Self.counted(network) { () throws(AVPipelineError) in
            try Self.open(opening, tracks: tracks, chapters: chapters, coverArt: coverArt, attachments: attachments,
                          finalPath: finalPath)
        }
        inputTimeBases = tracks.map { $0.timeBase.avValue }
        shiftTicks = Self.shiftTicks(startShift, streams: streams)
        stats = Array(repeating: StreamTally(), count: tracks.count)
        sampleExact = tracks.map { track in
            let rate = track.parameters.pointer.pointee.sample_rate
            guard track.kind == .audio, rate > 0, Int64(track.timeBase.denominator) < Int64(rate) * Int64(track.timeBase.numerator) else { return nil }
            return (rate, avp_nopts_value())
        }
    }

    /// Runs `body`, what FFmpeg logs meanwhile counted for `network` (its `ConnectionLog`).
    private static func counted<R>(_ network: NetworkConnection?, _ body: () throws(AVPipelineError) -> R) throws(AVPipelineError) -> R {
        guard let network else { return try body() }
        return try network.log.attributing(body)
    }

    /// Opens the output with one stream per track and writes its header.
    private static func open(_ opening: Opening, tracks: [MuxTrack], chapters: [Chapter], coverArt: CoverArt?,
                             attachments: [Attachment] = [], finalPath: String) throws(AVPipelineError) -> (OutputContext, [UnsafeMutablePointer<AVStream>]) {
        let context = try OutputContext(formatName: opening.container.muxerName, path: opening.path, stream: opening.stream,
                                        network: opening.network)
        try context.setMetadata(opening.metadata)
        try context.addChapters(chapters)
        var streams: [UnsafeMutablePointer<AVStream>] = []
        for track in tracks {
            let stream = try context.addStream(parameters: track.parameters, timeBase: track.timeBase)
            try context.setMetadata(track.metadata, of: stream)
            if let sar = track.sampleAspectRatio {
                // The container's pixel shape, else the codec header's (see TrackInfo), on the
                // stream and its parameters as ffmpeg's stream copy sets it: the mp4 muxer writes
                // `pasp` from it, which a codec header without one (AV1) does not give.
                stream.pointee.sample_aspect_ratio = sar.avValue
                stream.pointee.codecpar.pointee.sample_aspect_ratio = sar.avValue
            }
            if let matrix = track.displayMatrix {
                try check(matrix.withUnsafeBufferPointer { avp_stream_set_display_matrix(stream, $0.baseAddress) },
                          "set display matrix")
            }
            streams.append(stream)
        }
        // After the tracks, so that track i stays stream i.
        for attachment in attachments { _ = try context.addAttachment(attachment) }
        let coverStream = try coverArt.map { art throws(AVPipelineError) in try context.addCoverArt(art) }
        do {
            try context.writeHeader(options: opening.muxerOptions)
            if let coverArt, let coverStream {
                // The muxer keeps the picture and writes it into the index at the end.
                let picture = try Packet(copying: coverArt.bytes)
                picture.pointer.pointee.stream_index = coverStream.pointee.index
                picture.pointer.pointee.flags |= avp_pkt_flag_key()
                try check(av_write_frame(context.pointer, picture.pointer), "av_write_frame (cover art)")
            }
        } catch {
            if let network = opening.network, case .ffmpeg(_, let code, _) = error {
                // Writing the header is the first write: an RTMP server refusing the stream fails here.
                if network.interrupt.isRaised { throw .cancelled }
                throw .outputNotWritable(path: finalPath, reason: network.describe(code, reason: nil))
            }
            throw WriteFailure.describe(error, path: finalPath)
        }
        return (context, streams)
    }

    /// Drops the broken connection and opens the output again: a new header, and the tracks'
    /// times carrying on from where they were (a network output only; no chapters or cover).
    func reconnect() throws(AVPipelineError) {
        lostConnection = nil
        context.closeConnection()
        (context, streams) = try Self.counted(opening.network) { () throws(AVPipelineError) in
            try Self.open(opening, tracks: tracks, chapters: [], coverArt: nil, finalPath: finalPath)
        }
        shiftTicks = Self.shiftTicks(startShift, streams: streams)
    }

    /// The shift that brings `shift.start` of track `shift.track` to 0, in each stream's time base,
    /// worked out as libavformat's own shift is (ffmpeg's Matroska output): from that start as
    /// written, rounded up. Applied to packets already in their stream's time base, it is as exact
    /// as the container allows (in a video encoder's 1/25 s it would move the pictures a whole frame).
    private static func shiftTicks(_ shift: StartShift?, streams: [UnsafeMutablePointer<AVStream>]) -> [Int64] {
        guard let shift else { return streams.map { _ in 0 } }
        let base = streams[shift.track].pointee.time_base
        let start = av_rescale_q(shift.start.value, shift.start.timeBase.avValue, base)
        return streams.map { stream in
            start >= 0 ? 0 : av_rescale_q_rnd(-start, base, stream.pointee.time_base,
                                              AVRounding(rawValue: AV_ROUND_UP.rawValue | AV_ROUND_PASS_MINMAX.rawValue))
        }
    }

    /// Writes one packet of track `index` (timestamps in the track's time base) and releases its
    /// payload (`releasing`; otherwise it is left as it came, times and all, for another writer).
    /// A network output's failed write also sets `lostConnection`.
    func write(_ packet: Packet, track index: Int, releasing: Bool = true) throws(AVPipelineError) {
        let p = packet.pointer
        let kept = releasing ? nil : (p.pointee.pts, p.pointee.dts, p.pointee.duration, p.pointee.stream_index)
        defer { if let kept { (p.pointee.pts, p.pointee.dts, p.pointee.duration, p.pointee.stream_index) = kept } }
        let stream = streams[index]
        if let exact = sampleExact[index], p.pointee.dts != avp_nopts_value(), p.pointee.pts == p.pointee.dts {
            // Audio times rounded to milliseconds would give frames of 1014 or 1035 samples: as
            // ffmpeg's stream copy does, each time is the previous one plus the frame's samples,
            // unless the rounded time says the stream jumped.
            var last = exact.last
            let frameSamples = Int32(av_get_audio_frame_duration2(tracks[index].parameters.pointer, p.pointee.size))
            let samples = frameSamples > 0 ? frameSamples : tracks[index].parameters.pointer.pointee.frame_size
            let duration = av_rescale_q(p.pointee.duration, inputTimeBases[index], stream.pointee.time_base)
            let dts = av_rescale_delta(inputTimeBases[index], p.pointee.dts, AVRational(num: 1, den: exact.rate), samples,
                                       &last, stream.pointee.time_base)
            sampleExact[index]?.last = last
            // The duration stays the container's (what the last frame lasts), as in ffmpeg's copy.
            (p.pointee.dts, p.pointee.pts, p.pointee.duration) = (dts, dts, duration)
            p.pointee.stream_index = stream.pointee.index
        } else {
            StreamTally.place(p, from: inputTimeBases[index], on: stream)
        }
        let shift = shiftTicks[index]
        if shift != 0 {
            if p.pointee.pts != avp_nopts_value() { p.pointee.pts += shift }
            if p.pointee.dts != avp_nopts_value() { p.pointee.dts += shift }
        }
        if let end = stats[index].count(p, size: packet.size, timeBase: stream.pointee.time_base),
           position.map({ end > $0 }) ?? true {
            position = end
        }
        defer { if releasing { packet.unref() } }
        do {
            let rc = opening.network.map { network in network.log.attributing { av_write_frame(context.pointer, p) } }
                ?? av_write_frame(context.pointer, p)
            try check(rc, "av_write_frame")
        } catch {
            if let network = opening.network, case .ffmpeg(_, let code, _) = error {
                if network.interrupt.isRaised { throw .cancelled }
                let reason = network.describe(code, reason: nil)
                // An HLS upload is a series of requests, each its own connection: one that
                // failed is not reconnected.
                guard network.output.scheme.isLiveStream else {
                    throw .outputWriteFailed(path: finalPath, reason: "uploading a segment or the playlist failed at \(Self.seconds(position)): \(reason)")
                }
                lostConnection = reason
                throw .outputWriteFailed(path: finalPath, reason: "the connection was lost at \(Self.seconds(position)): \(reason)")
            }
            throw WriteFailure.describe(error, path: finalPath, track: tracks[index].label,
                                        at: MediaTime(ffmpeg: p.pointee.dts, timeBase: Rational(stream.pointee.time_base)))
        }
    }

    func finish() throws(AVPipelineError) {
        do {
            try Self.counted(opening.network) { () throws(AVPipelineError) in try context.finish() }
        } catch {
            if let network = opening.network, case .ffmpeg(_, let code, _) = error {
                if network.interrupt.isRaised { throw .cancelled }
                throw .outputWriteFailed(path: finalPath, reason: "finishing the \(network.output.scheme.isLiveStream ? "stream" : "upload") failed: \(network.describe(code, reason: nil))")
            }
            throw WriteFailure.describe(error, path: finalPath)
        }
    }

    /// Priming, padding and length of track `index` as written: packets of `frameSize` samples, the
    /// first one starting `priming` samples before 0, the last ending where the real audio does.
    func gapless(ofTrack index: Int, frameSize: Int, sampleRate: Int) -> GaplessInfo? {
        let samples = Rational(1, Int32(sampleRate))
        guard frameSize > 0, let first = stats[index].start?.converted(to: samples),
              let end = stats[index].end?.converted(to: samples), end.value > 0 else { return nil }
        let priming = Int(max(0, -first.value))
        let padding = stats[index].packets * frameSize - priming - Int(end.value)
        guard priming > 0, padding >= 0 else { return nil }
        return GaplessInfo(priming: priming, padding: padding, validSamples: end.value)
    }

    /// `time` for messages: "12.3 s", or "the start".
    static func seconds(_ time: MediaTime?) -> String {
        guard let time else { return "the start" }
        return "\(Double((time.seconds * 10).rounded()) / 10) s"
    }

    /// `duration` for messages: "0.5 s".
    static func seconds(duration: Duration) -> String {
        let (whole, attoseconds) = duration.components
        return Self.seconds(MediaTime(value: whole * 1000 + attoseconds / 1_000_000_000_000_000, timeBase: Rational(1, 1000)))
    }

    /// Payload bytes written so far, over every track.
    var payloadBytes: Int { stats.reduce(0) { $0 + $1.bytes } }

    func summary(path: String, highWaterMark: Int) -> MuxSummary {
        let perTrack = tracks.indices.map { index in
            MuxSummary.Track(kind: tracks[index].kind.rawValue, codec: Codec(tracks[index].codecID),
                             packets: stats[index].packets, bytes: stats[index].bytes, end: stats[index].end)
        }
        return MuxSummary(path: path, tracks: perTrack, duration: position, bufferHighWaterMark: highWaterMark)
    }
}
