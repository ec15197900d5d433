/// How an HLS stream (`Container.hls`) is cut and published.
public struct HLSOptions: Sendable {
    /// The segments' container.
    public enum Segments: String, Sendable, CaseIterable {
        /// MPEG-TS segments (`NAME0.ts`…): what every HLS player reads.
        case mpegts
        /// CMAF / fragmented MP4 (`NAME-init.mp4` + `NAME0.m4s`…).
        case fmp4
    }

    /// The segment length aimed at; segments are cut at keyframes, so one can be longer by up to a GOP.
    public var segmentDuration: MediaTime
    /// MPEG-TS (the default) or fragmented MP4 segments.
    public var segments: Segments
    /// A live stream: written in place as it goes, the playlist keeping the last `window` segments
    /// (older ones are deleted). Otherwise a VOD stream, published when complete.
    public var live: Bool
    /// How many segments a live playlist keeps (1…10000).
    public var window: Int
    /// A recording (not `live`): written in place as it goes, the playlist (`EVENT`) listing every
    /// segment as soon as it is finished, each version written whole under a temporary name and
    /// renamed, so a run killed outright leaves a playable stream up to its last segment. Set by
    /// the `Muxer` when its inputs are live or paced (`Muxer.Options.liveInput`, `realtime`);
    /// otherwise a VOD stream is published whole when complete.
    public var growing = false

    /// Written in the output's folder as it goes (`live` or `growing`), not published at the end.
    var inPlace: Bool { live || growing }

    /// 6 s MPEG-TS segments, VOD, unless told otherwise (a live window of 5).
    public init(segmentDuration: MediaTime = .seconds(6), segments: Segments = .mpegts, live: Bool = false, window: Int = 5) {
        self.segmentDuration = segmentDuration
        self.segments = segments
        self.live = live
        self.window = window
    }

    func validate() throws(AVPipelineError) {
        guard segmentDuration.value > 0, segmentDuration.seconds <= 3600 else {
            throw .invalidOption(name: "segment duration", value: "\(segmentDuration.seconds) s", reason: "must be more than 0 and at most 3600 s")
        }
        guard (1...10_000).contains(window) else {
            throw .invalidOption(name: "window", value: "\(window)", reason: "must be between 1 and 10000 segments")
        }
    }

    /// The hls muxer's options for a stream written by `folder`.
    func muxerOptions(_ folder: HLSFolder) -> [String: String] {
        muxerOptions(segmentPattern: folder.segmentPattern(fmp4: segments == .fmp4), initName: folder.initName, upload: false)
    }

    /// The hls muxer's options for a stream uploaded to `upload` with HTTP PUT, each request's
    /// reads and writes waiting at most `timeout`.
    func muxerOptions(upload: NetworkOutput, timeout: Duration) -> [String: String] {
        var options = muxerOptions(segmentPattern: upload.segmentPattern(fmp4: segments == .fmp4), initName: upload.initName, upload: true)
        options["method"] = "PUT"
        // A duration option: "10.5" is seconds.
        let (seconds, attoseconds) = timeout.components
        options["timeout"] = "\(Double(seconds) + Double(attoseconds) / 1e18)"
        return options
    }

    /// `upload`: over HTTP, where a live stream's old segments are deleted with DELETE and
    /// nothing can be renamed (no `temp_file`).
    private func muxerOptions(segmentPattern: String, initName: String, upload: Bool) -> [String: String] {
        var flags = ["independent_segments"]
        // max_delay: ffmpeg's 0.7 s of decoder buffering in the TS segments (see the .ts output).
        var options = ["hls_time": "\(segmentDuration.seconds)", "max_delay": "700000",
                       "hls_segment_filename": segmentPattern]
        if segments == .fmp4 {
            options["hls_segment_type"] = "fmp4"
            options["hls_fmp4_init_filename"] = initName
        }
        if live {
            options["hls_list_size"] = "\(window)"
            flags += upload ? ["delete_segments"] : ["delete_segments", "temp_file"]
        } else if growing && !upload {
            // temp_file: each segment is written as NAME.tmp and renamed when whole; an EVENT
            // playlist is always written so (hlsenc's use_temp_file), the finished ones all kept.
            options["hls_list_size"] = "0"
            options["hls_playlist_type"] = "event"
            flags.append("temp_file")
        } else {
            options["hls_list_size"] = "0"
            options["hls_playlist_type"] = "vod"
        }
        options["hls_flags"] = flags.joined(separator: "+")
        return options
    }
}
