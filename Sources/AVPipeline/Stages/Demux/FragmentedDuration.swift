internal import CFFmpeg

/// A fragmented MP4 keeps its samples in fragments (`moof`), not in its index, and may leave its
/// header's durations unknown: zero, or "all ones" (0xFFFFFFFF, the spec's "cannot be determined"),
/// which FFmpeg 5.1 reads at face value — 39 h 46 min at a 30000 timescale; FFmpeg 7.1 ignores
/// such a header and counts the fragments it read while probing, which can end short of the file.
/// Its real duration is where its last fragment ends: found by seeking to the last fragment
/// (through the `mfra` index when the file has one; else FFmpeg reads forward to it) and reading
/// the packets from there.
enum FragmentedDuration {
    /// Whether `info` is a MOV-family container whose audio and video tracks list no samples in
    /// the index: its durations are the header's word, or FFmpeg's count of the first fragments.
    static func isFragmented(_ info: MediaInfo) -> Bool {
        let tracks = info.audioTracks + info.videoTracks
        return info.formatName.hasPrefix("mov,") && !tracks.isEmpty && tracks.allSatisfy { $0.frameCount == nil }
    }

    /// Whether such a file has no believable duration at all (unknown, or the header's all ones).
    static func isUnknown(_ info: MediaInfo) -> Bool {
        let tracks = info.audioTracks + info.videoTracks
        guard isFragmented(info) else { return false }
        return info.duration == nil || tracks.contains { $0.duration == nil || $0.duration?.value == Int64(UInt32.max) }
    }

    /// `info` with the durations the fragments give where FFmpeg's are unknown or end before them
    /// (by more than a millisecond), or as it was when the fragments cannot be read.
    static func measured(_ info: MediaInfo, source: InputSource, policy: InputPolicy) -> MediaInfo {
        guard let (ends, size) = try? lastEnds(source: source, policy: policy), !ends.isEmpty else { return info }
        let unknown = isUnknown(info)
        func short(_ reported: MediaTime?, _ measured: MediaTime) -> Bool {
            unknown || reported.map { measured.seconds - $0.seconds > 0.001 } ?? true
        }
        var measured = info
        var changed = false
        measured.tracks = info.tracks.map { track in
            guard let end = ends[track.index] else { return track }
            let duration = end - (track.startTime ?? MediaTime(value: 0, timeBase: track.timeBase))
            guard short(track.duration, duration) else { return track }
            var track = track
            track.duration = duration
            track.bitRate = nil  // FFmpeg's was its byte count over the unknown duration
            changed = true
            return track
        }
        let start = info.startTime ?? MediaTime(value: 0, timeBase: Rational(1, 1))
        if let whole = ends.values.max().map({ $0 - start }), changed || short(info.duration, whole) {
            measured.duration = whole
            if whole.seconds > 0, size > 0 { measured.bitRate = Int(Double(size) * 8 / whole.seconds) }
        }
        return measured
    }

    /// Where each stream's last packet read from the last fragment on ends; the file's size.
    private static func lastEnds(source: InputSource, policy: InputPolicy) throws(AVPipelineError) -> ([Int: MediaTime], Int64) {
        let context = try InputContext(source: source, policy: policy, findStreamInfo: false)
        let size = context.pointer.pointee.pb.map { avio_size($0) } ?? 0
        // To the keyframe before a time far past any end (~35 years, safe to rescale); failing
        // to seek leaves the context at the start, and every packet is then read.
        let farAway: Int64 = 1 << 50
        _ = avformat_seek_file(context.pointer, -1, Int64.min, farAway, farAway, 0)
        let packet = try Packet()
        var ends: [Int: MediaTime] = [:]
        // A packet without a duration (the fragment's run may leave it out) lasts as long as the
        // gap before it.
        var previous: [Int: (pts: Int64, gap: Int64)] = [:]
        while try context.read(into: packet) {
            let p = packet.pointer.pointee
            let index = Int(p.stream_index)
            defer { packet.unref() }
            guard p.pts != avp_nopts_value() else { continue }
            let gap = previous[index].map { p.pts - $0.pts } ?? 0
            let length = p.duration > 0 ? p.duration : gap > 0 ? gap : previous[index]?.gap ?? 0
            previous[index] = (p.pts, length)
            let end = MediaTime(value: p.pts + length, timeBase: Rational(context.stream(index).pointee.time_base))
            if ends[index].map({ end > $0 }) ?? true { ends[index] = end }
        }
        return (ends, size)
    }
}
