internal import CFFmpeg

/// Splits a media file into its tracks' encoded packets, pulled per track by their consumers.
///
/// Opening reads the container header (and probes raw streams) to fill `info`; no packet is read
/// until a track is pulled. Each track read-ahead is bounded by `Options.maxBufferedPacketsPerTrack`
/// and tracks nobody asked for are never read (see `TrackReader`). Opens anything libavformat opens
/// from a local file: MP4/MOV/M4A, MKV, MPEG-TS, raw ADTS `.aac`, raw Annex B `.h264`/`.h265`, WAV…
///
/// `Sendable`: the demuxer keeps only immutable facts plus thread-safe status and cancellation, so
/// `cancel()` may be called from any task while others pull its tracks.
public final class Demuxer: Sendable {
    /// How a demuxer opens and reads its input.
    public struct Options: Sendable {
        /// How many packets each track may read ahead of its consumer (in background mode).
        public var maxBufferedPacketsPerTrack = 3
        /// Read each track on its own task, up to `maxBufferedPacketsPerTrack` packets ahead, so slow
        /// I/O overlaps the consumer's work. Off by default: each track is then read on demand, in
        /// the task that pulls it, one packet per pull (no read-ahead at all). For local files that
        /// is faster — handing every packet between threads costs more than the read it would hide.
        public var readsInBackground = false
        /// What opening the input may do (by default: this one local input, nothing it refers to).
        public var inputPolicy: InputPolicy
        /// A file that ends before its container says (a partial download: an MP4's index, a
        /// Matroska segment's size, an MP3's Xing header, an Ogg stream's last page, a FLAC's sample
        /// count, a cut MPEG-TS packet; see `DeclaredLength`) fails with `.invalidData` when a track
        /// reaches the cut. Off by default: a track then ends at its last intact packet, as ffmpeg
        /// and Media3 read such files, and `Demuxer.truncations` says what is missing.
        public var strict: Bool

        /// Options with each field as documented; the defaults read one local file on demand, leniently.
        public init(maxBufferedPacketsPerTrack: Int = 3, readsInBackground: Bool = false,
                    inputPolicy: InputPolicy = .default, strict: Bool = false) {
            self.maxBufferedPacketsPerTrack = maxBufferedPacketsPerTrack
            self.readsInBackground = readsInBackground
            self.inputPolicy = inputPolicy
            self.strict = strict
        }

        /// Shorthand for `inputPolicy.allowIndirection`: let playlists, concat lists and the like
        /// open the other local files they name.
        public var allowIndirection: Bool {
            get { inputPolicy.allowIndirection }
            set { inputPolicy.allowIndirection = newValue }
        }
    }

    /// What the file holds: container, duration, tags and tracks, read on opening.
    public let info: MediaInfo
    /// The options the demuxer was opened with.
    public let options: Options
    /// The file's embedded cover picture (its first attached picture), if any.
    public let coverArt: CoverArt?
    /// Where the bytes come from; each consumed track opens it again (when it can seek).
    let source: InputSource
    /// The probing context, kept for all tracks, when the input cannot seek (a pipe).
    let shared: SharedInput?
    /// The probing context of a file, handed to the first track read: it has parsed the header
    /// already, which for a long MP4 costs as much as copying its audio (see `TrackReader`).
    let probed: ProbedContext
    /// Codec parameters of every stream, in container order (shared read-only with the tracks).
    let parameters: [CodecParameters]
    let interrupt = InterruptFlag()
    /// What FFmpeg logs about this input's connections, counted for this demuxer alone.
    let connectionLog = ConnectionLog()

    /// How many times this input's HTTP connection dropped and FFmpeg reopened it where it was
    /// (its reconnect): the media is whole, but the link is unreliable. This input's own count,
    /// whatever other inputs of the process do.
    public var reconnections: Int { connectionLog.reconnections }
    let statusCell = DemuxStatusCell()
    /// The latest seek asked for; each track carries it out on its next pull.
    let seekCell = SeekRequests()
    /// Why the file is shorter than its container declares, known from its header alone (a
    /// Matroska segment, an MP3 Xing header, an Ogg stream's last page, an MPEG-TS packet cut;
    /// `DeclaredLength`), or nil when whole or when the container does not say.
    public let shortfall: String?
    /// The tracks whose index (an MP4/MOV sample table) lists packets past the end of the file,
    /// known on opening: `packetsRead` counts the packets wholly inside the file.
    public let indexedTruncations: [Truncation]
    /// Where a Matroska file's Duration element says it ends: the segment's, not each track's.
    let declaredEnd: MediaTime?
    /// Whether each track's duration is the header's word, to the sample (a FLAC's STREAMINFO
    /// sample count): a track ending before it was cut.
    let declaresTrackDurations: Bool
    /// A live network input (an RTMP or SRT stream, an HLS playlist without an end): read from
    /// where it is when opened, it cannot seek.
    public let isLive: Bool
    /// libavformat's pick of audio and video track (stream indices), made once on the probing context.
    private let bestAudio: Int?
    private let bestVideo: Int?
    private let bestSubtitle: Int?

    /// Opens the file at `path` and reads its header (no packet is read until a track is pulled).
    ///
    /// Throws `.fileNotFound`, `.notAMediaFile`, `.inputPolicy` or `.exceedsLimits` when the file
    /// cannot be opened as allowed.
    public convenience init(path: String, options: Options = .init()) throws {
        try self.init(source: .file(path: path), options: options)
    }

    /// Opens a network input — `http://`, `https://` (a file or an HLS playlist, VOD or live),
    /// `rtmp://`, `rtmps://` or `srt://` where the system's FFmpeg has the protocol — and reads its
    /// header, with the same typed tracks as a file.
    ///
    /// The input is read through its own scheme's protocols only (`https` → https, tls, tcp), and
    /// so is everything an HLS playlist names: a remote playlist naming a local file, `data:` or
    /// another protocol is refused with `.inputPolicy` before any of it is read. Every connection
    /// and read fails with `.notReadable` ("timed out") after `options.inputPolicy.networkTimeout`
    /// without an answer; HTTP reconnects on a dropped connection. `cancel()` interrupts any
    /// blocking network call. A live input (`isLive`) cannot seek.
    public convenience init(url: String, options: Options = .init()) throws {
        try self.init(source: .url(url), options: options)
    }

    /// Demuxes media held in memory (read through custom AVIO callbacks, no temporary file);
    /// `name` stands for the input in `info.path` and in errors.
    public convenience init(bytes: [UInt8], name: String = "<memory>", options: Options = .init()) throws {
        try self.init(source: .memory(name: name, bytes: bytes), options: options)
    }

    init(source: InputSource, options: Options) throws {
        guard options.maxBufferedPacketsPerTrack > 0, options.maxBufferedPacketsPerTrack <= 4096 else {
            throw AVPipelineError.invalidOption(name: "max buffered packets per track",
                                                value: "\(options.maxBufferedPacketsPerTrack)",
                                                reason: "must be between 1 and 4096")
        }
        self.options = options
        self.source = source
        // The probing context describes the file and is then read by the first consumed track;
        // each other consumed track gets a context of its own.
        let file = source.isRegularFile
        let remote = if case .url = source { true } else { false }
        let context = try InputContext(source: source, policy: options.inputPolicy, interrupt: interrupt,
                                       seeksOverSkippedData: file, connectionLog: connectionLog)
        isLive = context.isLive
        let described = MediaInfo(context: context)
        info = !remote && context.canSeek && FragmentedDuration.isFragmented(described)
            ? FragmentedDuration.measured(described, source: source, policy: options.inputPolicy) : described
        coverArt = (0..<context.streamCount).lazy.compactMap { CoverArt(stream: context.stream($0)) }.first
        parameters = try (0..<context.streamCount).map { index throws(AVPipelineError) in
            try CodecParameters(copying: context.stream(index).pointee.codecpar)
        }
        shortfall = context.canSeek ? DeclaredLength.shortfall(of: source, formatName: context.formatName) : nil
        indexedTruncations = context.canSeek ? Self.indexedTruncations(context) : []
        // "From the stream": the header gave it (a FLAC without a sample count is estimated from its bit rate).
        let headerDuration = context.pointer.pointee.duration_estimation_method == AVFMT_DURATION_FROM_STREAM
        declaredEnd = context.formatName == "matroska,webm" && headerDuration
            ? described.duration.map { (described.startTime ?? MediaTime(value: 0, timeBase: $0.timeBase)) + $0 } : nil
        declaresTrackDurations = context.formatName == "flac" && headerDuration
        bestAudio = context.bestStream(AVMEDIA_TYPE_AUDIO)
        bestVideo = context.bestStream(AVMEDIA_TYPE_VIDEO)
        bestSubtitle = context.bestStream(AVMEDIA_TYPE_SUBTITLE)
        // A live input is read once, like a pipe: a second connection would start elsewhere. A
        // network input whose tracks share their bytes is read once for all tracks until one seeks.
        if context.canSeek && !isLive && remote && Self.sharesBytesBetweenTracks(context.formatName) {
            probed = ProbedContext(nil)
            shared = SharedInput(context: context, reopenable: true)
        } else if context.canSeek && !isLive {
            shared = nil
            probed = ProbedContext(file || remote ? context : nil)
        } else {
            probed = ProbedContext(nil)
            try Self.verifyReadableOnce(context)
            shared = SharedInput(context: context)
        }
    }

    /// Formats whose tracks come packet by packet in the same bytes, which a reader of one track
    /// must download whole (MPEG-TS, and HLS made of it): one connection per track would fetch
    /// everything once per track. An MP4 reader seeks past the other tracks' runs instead.
    private static func sharesBytesBetweenTracks(_ formatName: String) -> Bool {
        formatName == "hls" || formatName == "mpegts"
    }

    /// Per track with a sample table, the packets lying wholly inside the file, when some do not:
    /// the index is in file order per track, so the missing ones are counted from its end.
    private static func indexedTruncations(_ context: InputContext) -> [Truncation] {
        guard context.formatName.hasPrefix("mov,"), let pb = context.pointer.pointee.pb else { return [] }
        let size = avio_size(pb)
        guard size > 0 else { return [] }
        return (0..<context.streamCount).compactMap { index in
            let stream = context.stream(index)
            guard stream.pointee.nb_frames > 0 else { return nil }
            let count = Int(avformat_index_get_entries_count(stream))
            var present = count
            while present > 0, let entry = avformat_index_get_entry(stream, Int32(present - 1)),
                  entry.pointee.pos + Int64(entry.pointee.size) > size {
                present -= 1
            }
            return present < count ? Truncation(track: index, packetsRead: present, packetsExpected: count, end: nil, missing: nil) : nil
        }
    }

    /// An MP4/MOV whose index (`moov`) comes after its media data was read past that data to find
    /// the index; without seeking, the data cannot be read any more.
    private static func verifyReadableOnce(_ context: InputContext) throws(AVPipelineError) {
        guard context.formatName.hasPrefix("mov,") else { return }
        let position = context.headerEnd
        for index in 0..<context.streamCount {
            let stream = context.stream(index)
            guard avformat_index_get_entries_count(stream) > 0,
                  let first = avformat_index_get_entry(stream, 0), first.pointee.pos < position else { continue }
            throw .unsupportedFormat("'\(context.path)': its index (moov) comes after the media data, which a pipe cannot go back to; read it from a file, or write it with the index first (remux with faststart)")
        }
    }

    /// Why a live RTMP input ended, once it has: its server said so, or kept the connection open
    /// with nothing on it for the network timeout (how nginx-rtmp leaves a player when the
    /// publisher stops). The end of a live stream is its normal end: its tracks end, as a file's
    /// do. A connection lost mid-stream is an error (`.notReadable`). nil while it runs.
    public var liveEnd: String? { shared?.liveEnd }

    /// Where the demuxer is in its life: opened, running, completed, failed or cancelled.
    public var status: Status { statusCell.status }

    /// Moves every track of this demuxer (those made so far and later) to `time`, a presentation
    /// time on the file's timeline (`MediaInfo.startTime` is where the file starts). Each track
    /// seeks when next pulled, to the keyframe at or before `time`; its first packet then carries
    /// a `SeekMark`, on which decoders drop what they hold and, in `.exact` mode, everything before
    /// `time`. Seeking backwards after the end works; a target past the end gives end of stream.
    /// An input read once (a pipe) cannot seek, nor can tracks read in background mode.
    public func seek(to time: MediaTime, mode: SeekMode = .exact) throws {
        guard !isLive else {
            throw AVPipelineError.unsupportedFormat("'\(info.path)' is a live stream: it cannot seek (it is read from where it is when opened)")
        }
        guard shared?.reopenable ?? true else {
            throw AVPipelineError.unsupportedFormat("'\(info.path)' cannot seek: it is read once, from the start (a pipe)")
        }
        guard !options.readsInBackground else {
            throw AVPipelineError.invalidOption(name: "seek", value: "\(time)", reason: "seeking needs on-demand reading (readsInBackground: false)")
        }
        seekCell.ask(time, mode: mode)
    }

    /// The tracks read so far that ended early because the file was cut (never in strict mode).
    public var truncations: [Truncation] { statusCell.truncations }

    /// Stops every track promptly: blocked reads return, pulls throw `.cancelled`, and the status
    /// becomes `.cancelled` (unless it had already completed or failed). Callable from any thread.
    public func cancel() {
        statusCell.cancel()
        interrupt.raise()
    }

    /// The audio track `index` (0 = the file's first audio track, in container order), or the best
    /// audio track (libavformat's choice) when `index` is nil. Throws `.noAudioStream` when the file
    /// has none.
    public func audioTrack(_ index: Int? = nil) throws -> DemuxedAudioTrack {
        try DemuxedAudioTrack(demuxer: self, track: audioTrackInfo(index))
    }

    /// What `audioTrack(index)` would read, without opening it.
    public func audioTrackInfo(_ index: Int? = nil) throws -> TrackInfo {
        try select(.audio, index, missing: .noAudioStream(path: info.path))
    }

    /// The video track `index` (0 = first, cover art excluded), or the best one when nil. Throws
    /// `.noVideoStream` when the file has none.
    public func videoTrack(_ index: Int? = nil) throws -> DemuxedVideoTrack {
        try DemuxedVideoTrack(demuxer: self, track: videoTrackInfo(index))
    }

    /// What `videoTrack(index)` would read, without opening it.
    public func videoTrackInfo(_ index: Int? = nil) throws -> TrackInfo {
        try select(.video, index, missing: .noVideoStream(path: info.path))
    }

    /// The subtitle track `index` (0 = the file's first, in container order), or the best one
    /// (libavformat's choice) when `index` is nil, as `audioTrack(_:)` and `videoTrack(_:)` choose.
    /// Throws `.invalidOption` when there is no such track.
    public func subtitleTrack(_ index: Int? = nil) throws -> DemuxedSubtitleTrack {
        let candidates = info.subtitleTracks
        guard let index else {
            guard let first = candidates.first else {
                throw AVPipelineError.invalidOption(name: "subtitle track", value: "best", reason: "the file has no subtitle track")
            }
            let best = bestSubtitle.flatMap { best in candidates.first { $0.index == best } } ?? first
            return try DemuxedSubtitleTrack(demuxer: self, track: best)
        }
        guard candidates.indices.contains(index) else {
            throw AVPipelineError.invalidOption(name: "subtitle track", value: "\(index)",
                                                reason: "the file has \(candidates.count) subtitle track\(candidates.count == 1 ? "" : "s")")
        }
        return try DemuxedSubtitleTrack(demuxer: self, track: candidates[index])
    }

    private func select(_ kind: TrackInfo.Kind, _ index: Int?,
                        missing: AVPipelineError) throws(AVPipelineError) -> TrackInfo {
        let candidates = kind == .audio ? info.audioTracks : info.videoTracks
        guard !candidates.isEmpty else { throw missing }
        guard let index else { return try described(bestTrack(kind) ?? candidates[0]) }
        guard candidates.indices.contains(index) else {
            throw .invalidOption(name: "\(kind) track", value: "\(index)",
                                 reason: "the file has \(candidates.count) \(kind) track\(candidates.count == 1 ? "" : "s") (0…\(candidates.count - 1))")
        }
        return try described(candidates[index])
    }

    /// A track whose basic parameters probing could not find (a file cut before the track's first
    /// packet, a raw stream without its headers) cannot be written anywhere: say so as the input's
    /// fault instead of letting a writer fail later with an opaque EINVAL.
    func described(_ track: TrackInfo) throws(AVPipelineError) -> TrackInfo {
        let unknown: String? = switch track.kind {
        case .audio: track.sampleRate == nil || track.channels == nil ? "sample rate or channel count" : nil
        case .video: track.codedWidth == nil ? "frame size" : nil
        default: nil
        }
        if let unknown {
            throw .invalidData(path: info.path, position: nil,
                               reason: "the \(track.kind) track's \(unknown) is unknown (no usable packet or header: is the file cut short?)")
        }
        return track
    }

    /// libavformat's pick among the tracks of `kind` (default disposition, most frames…), which is
    /// what `ffmpeg` selects too; cover art never wins.
    private func bestTrack(_ kind: TrackInfo.Kind) -> TrackInfo? {
        guard let best = kind == .audio ? bestAudio : bestVideo, info.tracks.indices.contains(best),
              !info.tracks[best].isCoverArt else { return nil }
        return info.tracks[best]
    }
}

/// Holds the probing context until the first track takes it (from whichever task makes it).
///
/// `@unchecked Sendable`: the context is only reached through `take()`, under the lock, and then
/// belongs to the one track that took it.
final class ProbedContext: @unchecked Sendable {
    private let lock = LockedState(())
    private var context: InputContext?

    init(_ context: InputContext?) { self.context = context }

    func take() -> InputContext? {
        lock.withLock { _ in
            defer { context = nil }
            return context
        }
    }
}
