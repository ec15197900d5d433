internal import CFFmpeg

/// The libavformat half of the Muxer: one output context with one stream per track. It writes
/// packets in the order it is given (the Muxer has already interleaved them), so it uses
/// `av_write_frame` — libavformat's own interleaving queue would hold packets back (up to
/// `max_interleave_delta`) when one track ends early.
final class MuxWriter {
    private let context: OutputContext
    private let finalPath: String
    private let tracks: [MuxTrack]
    private let streams: [UnsafeMutablePointer<AVStream>]
    /// Each track's time base, as its packets arrive (read per packet, without touching the track).
    private let inputTimeBases: [AVRational]
    // Per-packet state, unchecked: one driver (see `SampleSource`).
    @exclusivity(unchecked) private var stats: [StreamTally]
    @exclusivity(unchecked) private(set) var position: MediaTime?
    /// Per audio track: its sample rate where its time base is coarser than one sample (Matroska's
    /// milliseconds), and the rounding state `av_rescale_delta` carries from packet to packet.
    @exclusivity(unchecked) private var sampleExact: [(rate: Int32, last: Int64)?]

    init(path: String, finalPath: String, stream: Bool = false, container: Container, tracks: [MuxTrack],
         metadata: [String: String], chapters: [Chapter], coverArt: CoverArt?, muxerOptions: [String: String]) throws(AVPipelineError) {
        self.finalPath = finalPath
        self.tracks = tracks
        context = try OutputContext(formatName: container.muxerName, path: path, stream: stream)
        try context.setMetadata(metadata)
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
        self.streams = streams
        inputTimeBases = tracks.map { $0.timeBase.avValue }
        stats = Array(repeating: StreamTally(), count: tracks.count)
        sampleExact = tracks.map { track in
            let rate = track.parameters.pointer.pointee.sample_rate
            guard track.kind == .audio, rate > 0, Int64(track.timeBase.denominator) < Int64(rate) * Int64(track.timeBase.numerator) else { return nil }
            return (rate, avp_nopts_value())
        }
        // After the tracks, so that track i stays stream i.
        let coverStream = try coverArt.map { art throws(AVPipelineError) in try context.addCoverArt(art) }
        do {
            try context.writeHeader(options: muxerOptions)
            if let coverArt, let coverStream {
                // The muxer keeps the picture and writes it into the index at the end.
                let picture = try Packet(copying: coverArt.bytes)
                picture.pointer.pointee.stream_index = coverStream.pointee.index
                picture.pointer.pointee.flags |= avp_pkt_flag_key()
                try check(av_write_frame(context.pointer, picture.pointer), "av_write_frame (cover art)")
            }
        } catch {
            throw WriteFailure.describe(error, path: finalPath)
        }
    }

    /// Writes one packet of track `index` (timestamps in the track's time base) and releases its payload.
    func write(_ packet: Packet, track index: Int) throws(AVPipelineError) {
        let p = packet.pointer
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
        if let end = stats[index].count(p, size: packet.size, timeBase: stream.pointee.time_base),
           position.map({ end > $0 }) ?? true {
            position = end
        }
        defer { packet.unref() }
        do {
            try check(av_write_frame(context.pointer, p), "av_write_frame")
        } catch {
            throw WriteFailure.describe(error, path: finalPath, track: tracks[index].label,
                                        at: MediaTime(ffmpeg: p.pointee.dts, timeBase: Rational(stream.pointee.time_base)))
        }
    }

    func finish() throws(AVPipelineError) {
        do {
            try context.finish()
        } catch {
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
